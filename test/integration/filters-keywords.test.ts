// Filter keywords through the compiled matcher (lib/policy/keywords.ts, issue 25): the same
// answers as the alternation RegExp it replaces, on generated texts and keywords, with the
// case folds of the RegExp engine itself; and work that grows with the text and the
// keywords' total length, not with their product.
import fc from 'fast-check';
import { caseFold, compileKeywords, keywordMatcherSteps, type Phrase } from '../../lib/policy/keywords';

/** The matching of b0d7161 (one 'iu' RegExp), the ends of a keyword taken as code points. */
function oldRegExp(phrases: Phrase[]): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const word = /[\p{L}\p{N}_]/u;
  const parts = phrases.map((p) => {
    const body = escape(p.keyword);
    if (!p.wholeWord) return body;
    const cps = [...p.keyword];
    const start = word.test(cps[0] ?? '') ? '(?<![\\p{L}\\p{N}_])' : '';
    const end = word.test(cps.at(-1) ?? '') ? '(?![\\p{L}\\p{N}_])' : '';
    return `${start}${body}${end}`;
  });
  return new RegExp(parts.join('|'), 'iu');
}

// Characters where case-insensitive matching is easy to get wrong: folds that change length under
// toLowerCase ('İ'), folds to ASCII ('ſ', Kelvin sign), Turkish dotless i, final sigma, titlecase
// digraphs, Cherokee, a combining mark that folds to a letter, astral letters, numbers, '_', punctuation.
const alphabet = [
  'a', 'A', 'b', 's', 'S', 'ſ', 'k', 'K', '\u212A', 'i', 'I', 'İ', 'ı', 'ß', 'ẞ', 'σ', 'ς', 'Σ', 'ǅ', 'ǆ', 'Ǆ', 'Ꭰ', 'ꭰ',
  '\u0345', 'ι', 'é', 'É', 'ΐ', 'ΐ', 'ﬅ', 'ﬆ', '𐐀', '𐐨', '𝒜', '😀', '1', '٣', '_', ' ', '-', '#', '.', '\n',
];
const textOf = (maxLength: number) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((cs) => cs.join(''));
const phraseOf = fc.record({ keyword: textOf(4).filter((k) => k.length > 0), wholeWord: fc.boolean() });

describe('compiled filter keywords', () => {
  it('match what the alternation RegExp matched, and give the same matched text', () => {
    fc.assert(
      fc.property(fc.array(phraseOf, { minLength: 1, maxLength: 6 }), textOf(24), (phrases, text) => {
        const old = oldRegExp(phrases);
        const matcher = compileKeywords(phrases)!;
        expect(matcher.test(text)).toBe(old.test(text));
        expect(matcher.exec(text)).toBe(old.exec(text)?.[0]);
      }),
      { numRuns: 500 },
    );
  });

  it('agree with it on keywords cut from the text itself (many matches, overlapping)', () => {
    const cut = fc.tuple(fc.nat(24), fc.integer({ min: 1, max: 6 }), fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(textOf(24), fc.array(cut, { minLength: 1, maxLength: 6 }), (text, cuts) => {
        const cps = [...text];
        const phrases = cuts
          .map(([at, length, wholeWord, upper]) => {
            const keyword = cps.slice(at % Math.max(cps.length, 1), (at % Math.max(cps.length, 1)) + length).join('');
            return { keyword: upper ? keyword.toUpperCase() : keyword, wholeWord };
          })
          .filter((p) => p.keyword.length > 0);
        if (phrases.length === 0) return;
        const old = oldRegExp(phrases);
        const matcher = compileKeywords(phrases)!;
        expect(matcher.test(text)).toBe(old.test(text));
        expect(matcher.exec(text)).toBe(old.exec(text)?.[0]);
      }),
      { numRuns: 500 },
    );
  });

  it('fold every character as the RegExp engine compares it (every cased code point and its equals)', () => {
    const cased: number[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch) cased.push(cp);
    }
    const members = [...new Set([...cased, ...cased.map(caseFold)])];
    const joined = String.fromCodePoint(...members);
    const wrong: string[] = [];
    for (const cp of members) {
      const ch = String.fromCodePoint(cp);
      const equals = [...joined.matchAll(new RegExp(ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu'))].map((m) => m[0].codePointAt(0)!);
      for (const other of equals) if (caseFold(other) !== caseFold(cp)) wrong.push(`${cp.toString(16)}~${other.toString(16)}`);
      if (!equals.includes(caseFold(cp))) wrong.push(`${cp.toString(16)}->${caseFold(cp).toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keep the examples of Mastodon\'s whole-word rule', () => {
    const m = compileKeywords([
      { keyword: 'cat', wholeWord: true },
      { keyword: '#tag', wholeWord: true },
      { keyword: 'straße', wholeWord: false },
    ])!;
    expect(m.exec('A CAT here')).toBe('CAT');
    expect(m.test('concatenate')).toBe(false);
    expect(m.exec('see #TAG.')).toBe('#TAG');
    expect(m.test('see #tagged')).toBe(false);
    expect(m.exec('die STRASSE und die Straẞe')).toBe('Straẞe');
    expect(compileKeywords([{ keyword: 'i', wholeWord: false }])!.test('İı')).toBe(false);
    expect(compileKeywords([{ keyword: 'İ', wholeWord: true }])!.exec('x İ y')).toBe('İ');
    expect(compileKeywords([{ keyword: 'ſ', wholeWord: true }])!.exec('1 S 2')).toBe('S');
  });

  it('does work linear in the text and in the keywords\' total length, not their product', () => {
    // 500 keywords of 512 characters that share a 511-character prefix with the text: what made the RegExp quadratic.
    const phrases = Array.from({ length: 500 }, (_, i) => ({ keyword: `${'a'.repeat(511)}${String.fromCodePoint(0x4e00 + i)}`, wholeWord: i % 2 === 0 }));
    const before = keywordMatcherSteps.compile;
    const matcher = compileKeywords(phrases)!;
    const totalLength = phrases.reduce((n, p) => n + p.keyword.length, 0);
    expect(keywordMatcherSteps.compile - before).toBeLessThanOrEqual(3 * totalLength);
    const text = 'a'.repeat(100_000);
    const scanned = keywordMatcherSteps.scan;
    expect(matcher.exec(text)).toBeUndefined();
    expect(matcher.test(`${text}${String.fromCodePoint(0x4e00 + 7)}`)).toBe(true);
    // Each automaton takes one transition per character plus failure hops that never outnumber them.
    expect(keywordMatcherSteps.scan - scanned).toBeLessThanOrEqual(2 * 2 * (2 * text.length + 1));
  });
});
