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
type Outputs = { len: Int32Array; idx: Int32Array };
const outputs = (capacity: number): Outputs => ({ len: new Int32Array(capacity).fill(-1), idx: new Int32Array(capacity).fill(-1) });

/**
 * One Aho-Corasick automaton of at most `capacity` nodes (1 + the keywords' total length);
 * `anyEnd` counts every keyword ending at a node, `freeEnd` those without an end boundary.
 * Most nodes of a trie of long keywords have one child: it is kept in two arrays, and only
 * nodes with more get a map.
 */
class Automaton {
  private size = 1;
  private readonly firstSymbol: Int32Array;
  private readonly firstChild: Int32Array;
  private readonly moreChildren = new Map<number, Map<number, number>>();
  private readonly fail: Int32Array;
  private readonly parent: Int32Array;
  private readonly symbol: Int32Array;
  private readonly depth: Int32Array;
  readonly anyEnd: Outputs;
  readonly freeEnd: Outputs;
  maxLen = 0;

  constructor(capacity: number) {
    this.firstSymbol = new Int32Array(capacity).fill(-1);
    this.firstChild = new Int32Array(capacity);
    this.fail = new Int32Array(capacity);
    this.parent = new Int32Array(capacity);
    this.symbol = new Int32Array(capacity);
    this.depth = new Int32Array(capacity);
    this.anyEnd = outputs(capacity);
    this.freeEnd = outputs(capacity);
  }

  private child(node: number, sym: number): number | undefined {
    if (this.firstSymbol[node] === sym) return this.firstChild[node];
    return this.moreChildren.get(node)?.get(sym);
  }

  add(symbols: number[], index: number, endBoundary: boolean): void {
    let node = 0;
    for (const sym of symbols) {
      keywordMatcherSteps.compile++;
      let next = this.child(node, sym);
      if (next === undefined) {
        next = this.size++;
        if (this.firstSymbol[node] === -1) (this.firstSymbol[node] = sym), (this.firstChild[node] = next);
        else {
          let more = this.moreChildren.get(node);
          if (!more) this.moreChildren.set(node, (more = new Map()));
          more.set(sym, next);
        }
        this.parent[next] = node;
        this.symbol[next] = sym;
        this.depth[next] = this.depth[node]! + 1;
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
    // Nodes in order of depth (a counting sort).
    const starts = new Int32Array(this.maxLen + 2);
    for (let v = 1; v < this.size; v++) starts[this.depth[v]! + 1]!++;
    for (let d = 1; d < starts.length; d++) starts[d]! += starts[d - 1]!;
    const order = new Int32Array(this.size);
    for (let v = 1; v < this.size; v++) order[starts[this.depth[v]!]!++] = v;
    const { anyEnd, freeEnd } = this;
    for (let i = 0; i < this.size - 1; i++) {
      const v = order[i]!;
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
      if (anyEnd.idx[v]! < 0) (anyEnd.len[v] = anyEnd.len[f]!), (anyEnd.idx[v] = anyEnd.idx[f]!);
      if (freeEnd.idx[v]! < 0) (freeEnd.len[v] = freeEnd.len[f]!), (freeEnd.idx[v] = freeEnd.idx[f]!);
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
  const keywords = phrases.map((p, index) => {
    const cps = codePoints(p.keyword);
    const first = cps[0];
    const last = cps.at(-1);
    const startBoundary = p.wholeWord && first !== undefined && WORD.test(String.fromCodePoint(first));
    const endBoundary = p.wholeWord && last !== undefined && WORD.test(String.fromCodePoint(last));
    return { cps, index, startBoundary, endBoundary };
  });
  const automatonOf = (startBoundary: boolean) => {
    const these = keywords.filter((k) => k.startBoundary === startBoundary);
    const automaton = new Automaton(1 + these.reduce((n, k) => n + k.cps.length, 0));
    for (const { cps, index, endBoundary } of these) {
      const symbols = startBoundary ? cps.map((cp, i) => fold(cp) * 2 + (i === 0 || !isWordChar(cps[i - 1]!) ? 1 : 0)) : cps.map(fold);
      automaton.add(symbols, index, endBoundary);
    }
    automaton.build();
    return automaton;
  };
  const atStart = automatonOf(true);
  const anywhere = automatonOf(false);
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
