// Filter keywords matched in time linear in the text, whatever their number and length
// (issue 25): one alternation RegExp of 500 keywords of 512 characters backtracks for
// seconds over one long status, inside the shared fan-out worker. The keywords of a viewer
// are compiled into an Aho-Corasick automaton over case-folded code points instead; the
// text is read once, each character costing one transition plus failure hops that, over
// the whole text, never outnumber its characters.
//
// The rule is unchanged (Mastodon's CustomFilterKeyword, as the RegExp with flags 'iu'
// applied it): case-insensitive as that RegExp compares (simple case folding, one code
// point for one code point, so 'İ' only matches itself and 'ſ' matches 's'), and for a
// whole-word keyword a boundary where it starts or ends with a word character (a letter,
// a number or '_'), i.e. the text's neighbouring character is not one. The match returned
// is the one that RegExp#exec found: the leftmost, and at the same start the keyword
// listed first; its text is the status's own.
//
// A start boundary is read in the alphabet: the keywords that need one have their own
// automaton whose symbols carry "the previous character is no word character" (fixed by
// the keyword itself after its first character), so that every output of either automaton
// is a match whose start is right; end boundaries are one look at the next character.

/** A phrase to match; v1 filters call it `phrase`, v2 keywords `keyword`. */
export type Phrase = { keyword: string; wholeWord: boolean };

/**
 * Work done by every matcher of this container, in automaton steps (a trie node made, a
 * failure link followed, a transition taken): what keeps filters bounded is that these grow
 * with the keywords' total length when compiling and with the text's length when matching.
 */
export const keywordMatcherSteps = { compile: 0, scan: 0 };

const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;
const singleCodePoint = (s: string): number | undefined => {
  const cp = s.codePointAt(0);
  return cp !== undefined && s.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
};

let sharingUpperCase: Map<string, number[]> | undefined;
/** The characters (all in the BMP) whose upper case is several code points, by that upper case, in code point order. */
function byLongUpperCase(): Map<string, number[]> {
  if (sharingUpperCase) return sharingUpperCase;
  sharingUpperCase = new Map();
  for (let cp = 0x80; cp <= 0xffff; cp++) {
    if (isSurrogate(cp)) continue;
    const upper = String.fromCharCode(cp).toUpperCase();
    if (singleCodePoint(upper) === undefined) sharingUpperCase.set(upper, [...(sharingUpperCase.get(upper) ?? []), cp]);
  }
  return sharingUpperCase;
}

const folds = new Map<number, number>();
/**
 * One code point of each class the 'iu' RegExp treats as equal (its Canonicalize), each
 * candidate confirmed by the RegExp engine itself ('ı' has 'i' as lower of upper, yet only
 * matches itself): the lower case of a single upper case, or else the lower case; a
 * character whose upper case is several code points ('ß', 'ﬅ', 'ΐ') folds to the first
 * character of the same upper case that the engine holds equal ('ﬆ' is 'ﬅ', 'ΐ' is 'ΐ').
 */
function fold(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp;
  const known = folds.get(cp);
  if (known !== undefined) return known;
  let folded = cp;
  if (!isSurrogate(cp)) {
    const ch = String.fromCodePoint(cp);
    const same = new RegExp(`^${ch}$`, 'iu');
    const upper = ch.toUpperCase();
    const candidates =
      singleCodePoint(upper) !== undefined ? [upper.toLowerCase(), ch.toLowerCase()] : (byLongUpperCase().get(upper) ?? []).map((c) => String.fromCodePoint(c));
    for (const candidate of candidates) {
      const c = singleCodePoint(candidate);
      if (c !== undefined && (c === cp || same.test(candidate))) {
        folded = c;
        break;
      }
    }
  }
  folds.set(cp, folded);
  return folded;
}
/** The fold of each code point, exported for the test that checks it against the RegExp engine. */
export const caseFold = fold;

// What the old lookarounds `(?<![\p{L}\p{N}_])` call a word character (flags 'iu'; a class under 'i' also
// holds what folds into it, as U+0345, which folds to 'ι').
const WORD_IU = /[\p{L}\p{N}_]/iu;
// What decides whether a keyword has a boundary at an end (flag 'u' only, as before).
const WORD = /^[\p{L}\p{N}_]$/u;
const wordness = new Map<number, boolean>();
function isWordChar(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  let w = wordness.get(cp);
  if (w === undefined) {
    w = !isSurrogate(cp) && WORD_IU.test(String.fromCodePoint(cp));
    wordness.set(cp, w);
  }
  return w;
}

const codePoints = (s: string): number[] => {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
};

/** A longest output of a node: the keyword's length and its index (lowest among equals), -1 for none. */
type Outputs = { len: number[]; idx: number[] };

/**
 * One Aho-Corasick automaton; `anyEnd` counts every keyword ending at a node, `freeEnd` those
 * without an end boundary. Most nodes of a trie of long keywords have one child: it is kept
 * in two arrays, and only nodes with more get a map.
 */
class Automaton {
  private readonly firstSymbol: number[] = [-1];
  private readonly firstChild: number[] = [0];
  private readonly moreChildren: (Map<number, number> | undefined)[] = [undefined];
  private readonly fail: number[] = [0];
  private readonly parent: number[] = [0];
  private readonly symbol: number[] = [0];
  private readonly depth: number[] = [0];
  readonly anyEnd: Outputs = { len: [-1], idx: [-1] };
  readonly freeEnd: Outputs = { len: [-1], idx: [-1] };
  maxLen = 0;

  private child(node: number, sym: number): number | undefined {
    if (this.firstSymbol[node] === sym) return this.firstChild[node];
    return this.moreChildren[node]?.get(sym);
  }

  add(symbols: number[], index: number, endBoundary: boolean): void {
    let node = 0;
    for (const sym of symbols) {
      keywordMatcherSteps.compile++;
      let next = this.child(node, sym);
      if (next === undefined) {
        next = this.fail.length;
        if (this.firstSymbol[node] === -1) (this.firstSymbol[node] = sym), (this.firstChild[node] = next);
        else (this.moreChildren[node] ??= new Map()).set(sym, next);
        this.firstSymbol.push(-1);
        this.firstChild.push(0);
        this.moreChildren.push(undefined);
        this.fail.push(0);
        this.parent.push(node);
        this.symbol.push(sym);
        this.depth.push(this.depth[node]! + 1);
        for (const o of [this.anyEnd, this.freeEnd]) o.len.push(-1), o.idx.push(-1);
      }
      node = next;
    }
    this.maxLen = Math.max(this.maxLen, symbols.length);
    const own = (o: Outputs) => {
      if (o.idx[node]! < 0 || index < o.idx[node]!) (o.len[node] = symbols.length), (o.idx[node] = index);
    };
    own(this.anyEnd);
    if (!endBoundary) own(this.freeEnd);
  }

  /** Failure links and longest outputs, nodes taken by depth so that a node's failure is done before it. */
  build(): void {
    const byDepth: number[][] = Array.from({ length: this.maxLen + 1 }, () => []);
    for (let v = 1; v < this.depth.length; v++) byDepth[this.depth[v]!]!.push(v);
    for (const level of byDepth) {
      for (const v of level) {
        const u = this.parent[v]!;
        let f = 0;
        if (u !== 0) {
          f = this.fail[u]!;
          for (;;) {
            keywordMatcherSteps.compile++;
            const t = this.child(f, this.symbol[v]!);
            if (t !== undefined) {
              f = t;
              break;
            }
            if (f === 0) break;
            f = this.fail[f]!;
          }
        }
        this.fail[v] = f;
        for (const o of [this.anyEnd, this.freeEnd]) if (o.idx[v]! < 0) (o.len[v] = o.len[f]!), (o.idx[v] = o.idx[f]!);
      }
    }
  }

  step(node: number, sym: number): number {
    for (;;) {
      keywordMatcherSteps.scan++;
      const t = this.child(node, sym);
      if (t !== undefined) return t;
      if (node === 0) return 0;
      node = this.fail[node]!;
    }
  }
}

/** A match: where it starts and ends in the text (UTF-16 offsets) and which keyword it is. */
type Found = { start: number; end: number; index: number };

/** A compiled set of keywords: whether a text matches, and the match RegExp#exec would give. */
export type KeywordMatcher = { test(text: string): boolean; exec(text: string): string | undefined };

/** The matcher of `phrases` (undefined for none), compiled once: keep it for every text it judges. */
export function compileKeywords(phrases: Phrase[]): KeywordMatcher | undefined {
  if (phrases.length === 0) return undefined;
  // Keywords that need the previous character to be no word character, and the others.
  const atStart = new Automaton();
  const anywhere = new Automaton();
  phrases.forEach((p, index) => {
    const cps = codePoints(p.keyword);
    const first = cps[0];
    const last = cps.at(-1);
    const startBoundary = p.wholeWord && first !== undefined && WORD.test(String.fromCodePoint(first));
    const endBoundary = p.wholeWord && last !== undefined && WORD.test(String.fromCodePoint(last));
    if (!startBoundary) return anywhere.add(cps.map(fold), index, endBoundary);
    atStart.add(cps.map((cp, i) => fold(cp) * 2 + (i === 0 || !isWordChar(cps[i - 1]!) ? 1 : 0)), index, endBoundary);
  });
  atStart.build();
  anywhere.build();
  const maxLen = Math.max(atStart.maxLen, anywhere.maxLen);

  const scan = (text: string, first: boolean): Found | undefined => {
    const cps = codePoints(text);
    const n = cps.length;
    const folded = new Int32Array(n);
    const word = new Uint8Array(n + 1);
    for (let j = 0; j < n; j++) {
      folded[j] = fold(cps[j]!);
      word[j] = isWordChar(cps[j]!) ? 1 : 0;
    }
    let bestStart = -1;
    let bestEnd = -1;
    let bestIndex = -1;
    // The longest match of `a` ending at j (the leftmost start there), kept when it starts before the best so far.
    const consider = (a: Automaton, node: number, j: number) => {
      const o = word[j] === 0 ? a.anyEnd : a.freeEnd;
      const len = o.len[node]!;
      if (len < 0) return;
      const start = j - len;
      const index = o.idx[node]!;
      if (bestStart < 0 || start < bestStart || (start === bestStart && index < bestIndex)) (bestStart = start), (bestEnd = j), (bestIndex = index);
    };
    let s = 0;
    let a = 0;
    consider(anywhere, a, 0);
    for (let j = 0; j < n; j++) {
      // A later match ends after j, so starts after j - maxLen: none can start before the best one.
      if (bestStart >= 0 && (!first || j - maxLen >= bestStart)) break;
      const f = folded[j]!;
      a = anywhere.step(a, f);
      s = atStart.step(s, f * 2 + (j === 0 || word[j - 1] === 0 ? 1 : 0));
      consider(anywhere, a, j + 1);
      consider(atStart, s, j + 1);
    }
    if (bestStart < 0) return undefined;
    // Code point positions to UTF-16 offsets (only for the one match returned).
    const offset = (k: number) => cps.slice(0, k).reduce((units, cp) => units + (cp > 0xffff ? 2 : 1), 0);
    return { start: offset(bestStart), end: offset(bestEnd), index: bestIndex };
  };

  return {
    test: (text) => scan(text, false) !== undefined,
    exec: (text) => {
      const found = scan(text, true);
      return found && text.slice(found.start, found.end);
    },
  };
}
