// Filter keywords through the compiled matcher (lib/policy/keywords.ts, issue 25): the same
// answers as the alternation RegExp it replaces, on generated texts and keywords, with the
// case folds of the RegExp engine itself; and work that grows with the text and the
// keywords' total length, not with their product, also through the fan-out worker for a
// follower holding as many keywords of the longest length as the filters API takes.
import fc from 'fast-check';
import { z } from 'zod';
import { handler as createFilter } from '../../functions/filters/v2_create';
import { handler as addToList } from '../../functions/lists/add_accounts';
import { handler as createList } from '../../functions/lists/create';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import * as keys from '../../lib/db/keys';
import { queryAll } from '../../lib/db/table';
import { FILTER_CAPS } from '../../lib/filters/store';
import { caseFold, compileKeywords, keywordMatcherSteps, type Phrase } from '../../lib/policy/keywords';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import { RAW_CAPS } from '../../lib/text/limits';
import { aFollow, aPostedStatus, aUser } from '../support/factories';
import { call } from '../support/http';

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

const entryIds = async (partition: string): Promise<string[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition } }, z.object({ statusId: z.string() }).passthrough())).map((e) => e.statusId);

describe('hide filters of the longest keywords at fan-out', () => {
  registerInlineWorker('fanout', fanoutWorker);

  it('cost each follower work bounded by its keywords and the text, and still hide what they match', async () => {
    const [author, filtering, plain] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(filtering.account, author.account);
    await aFollow(plain.account, author.account);
    // The filtering follower also lists the author: the fan-out judges it again for its list.
    const list = await call(createList, { method: 'POST', path: '/api/v1/lists', json: { title: 'all' }, token: filtering.token });
    const listId = String(list.body.id);
    expect((await call(addToList, { method: 'POST', path: `/api/v1/lists/${listId}/accounts`, pathParameters: { id: listId }, json: { account_ids: [author.account.id] }, token: filtering.token })).status).toBe(200);

    // As many keywords as an account may hold, each as long as the API takes: a run of 'a' and one distinct character.
    const length = RAW_CAPS.filterPhrase;
    const keywords = Array.from({ length: FILTER_CAPS.keywords }, (_, i) => `${'a'.repeat(length - 1)}${String.fromCodePoint(0x4e00 + i)}`);
    for (let i = 0; i < keywords.length; i += 50) {
      const res = await call(createFilter, {
        method: 'POST',
        path: '/api/v2/filters',
        json: { title: `long ${i}`, context: ['home'], filter_action: 'hide', keywords_attributes: keywords.slice(i, i + 50).map((keyword, k) => ({ keyword, whole_word: k % 2 === 0 })) },
        token: filtering.token,
      });
      expect(res.status).toBe(200);
    }
    const keywordLength = keywords.reduce((n, k) => n + k.length, 0);
    // What compiling the follower's keywords costs: every character inserted once, failure links bounded by twice that.
    const compiledOnce = keywordMatcherSteps.compile;
    compileKeywords(keywords.map((keyword, i) => ({ keyword, wholeWord: i % 50 % 2 === 0 })));
    const oneCompile = keywordMatcherSteps.compile - compiledOnce;
    expect(oneCompile).toBeLessThanOrEqual(3 * keywordLength);

    const judged = async (post: () => Promise<string>, textLength: number) => {
      const compile = keywordMatcherSteps.compile;
      const scan = keywordMatcherSteps.scan;
      const id = await post();
      // One compile for the follower, for its home and its list; the text read once by each of the two automata,
      // one transition per character and failure hops that never outnumber them.
      expect(keywordMatcherSteps.compile - compile).toBe(oneCompile);
      expect(keywordMatcherSteps.scan - scan).toBeLessThanOrEqual(2 * (2 * textLength + 1));
      return id;
    };

    // A local post as long as the API takes (links count 23 characters), all of it one run of 'a'.
    const local = `https://example.com/${'a'.repeat(RAW_CAPS.statusText - 'https://example.com/'.length)}`;
    const longLocal = await judged(async () => {
      const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: local }, token: author.token });
      expect(res.status).toBe(200);
      return String(res.body.id);
    }, local.length);
    // A remote-size text (100,000 characters, as an inbox Note may carry), through the worker.
    const remoteText = 'a'.repeat(100_000);
    const longRemote = await judged(async () => {
      const status = await aPostedStatus(author.account, { text: remoteText, contentHtml: `<p>${remoteText}</p>` });
      expect((await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]))).batchItemFailures).toEqual([]);
      return status.id;
    }, remoteText.length);
    const matchingText = `see https://example.com/${keywords[321]} !`;
    const matching = await judged(async () => {
      const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: matchingText }, token: author.token });
      expect(res.status).toBe(200);
      return String(res.body.id);
    }, matchingText.length);

    for (const partition of [keys.homePartition(filtering.account.id), keys.listPartition(listId)]) {
      const entries = await entryIds(partition);
      expect(entries).toEqual(expect.arrayContaining([longLocal, longRemote]));
      expect(entries).not.toContain(matching);
    }
    expect(await entryIds(keys.homePartition(plain.account.id))).toEqual(expect.arrayContaining([longLocal, longRemote, matching]));
  });
});
