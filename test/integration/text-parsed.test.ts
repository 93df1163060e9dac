// A status text is tokenised once per post (parseStatusText), and the length
// check, the mentions, the tags and the HTML all read that one ParsedText.
// test/fixtures/status-text.json holds what the separate calls produced, each
// tokenising the text on its own, before this was so (recorded from them on
// tricky texts: mentions with domains and ports, unicode hashtags, URLs with
// punctuation, emoji and shortcodes, surrounding and unicode whitespace): the
// one parse must give the same counted length, the same HTML byte for byte,
// the same mentions and tags.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  extractEntities,
  localMentionKey,
  localMentionUsernames,
  mentionedAccounts,
  parseStatusText,
  statusLength,
  statusToHtml,
  tagDisplayNames,
  tagsOf,
  type ResolvedMention,
} from '../../lib/text/status';

type Recorded = {
  text: string;
  length: number;
  lengthWithWarning: number;
  html: string;
  localMentions: string[];
  mentioned: string[];
  tags: string[];
  tagNames: Record<string, string>;
};
const recorded: Recorded[] = JSON.parse(readFileSync(new URL('../fixtures/status-text.json', import.meta.url), 'utf8'));

const account = (id: string, username: string): ResolvedMention => ({ id, username, acct: username, url: `https://social.example/@${username}` });
/** The accounts that exist when the fixture was recorded: alice and bob. */
const resolved = new Map([
  [localMentionKey('alice'), account('1', 'alice')],
  [localMentionKey('bob'), account('2', 'bob')],
]);

describe('a status text parsed once', () => {
  it.each(recorded.map((r) => [JSON.stringify(r.text), r] as const))('gives what the separate passes gave for %s', (_name, r) => {
    const parsed = parseStatusText(r.text);
    expect(statusLength(parsed)).toBe(r.length);
    expect(statusLength(parsed, 'cw 👍🏽')).toBe(r.lengthWithWarning);
    expect(statusToHtml(parsed, resolved)).toBe(r.html);
    expect(localMentionUsernames(parsed)).toEqual(r.localMentions);
    expect(mentionedAccounts(parsed, resolved).map((a) => a.username)).toEqual(r.mentioned);
    expect(tagsOf(parsed)).toEqual(r.tags);
    expect(Object.fromEntries(tagDisplayNames(r.text))).toEqual(r.tagNames);
  });

  it('keeps the text with its line endings normalized, and the entities in order of position without overlap', () => {
    const parsed = parseStatusText('a\r\n@alice https://example.com/#tag #tag\r@bob');
    expect(parsed.text).toBe('a\n@alice https://example.com/#tag #tag\n@bob');
    expect(parsed.entities.map((e) => [e.kind, parsed.text.slice(e.start, e.end)])).toEqual([
      ['mention', '@alice'],
      ['url', 'https://example.com/#tag'],
      ['hashtag', '#tag'],
      ['mention', '@bob'],
    ]);
  });

  // The HTML leaves surrounding whitespace out; it used to find the entities
  // again in the trimmed text, and the one parse must give it those entities
  // for any text (U+FEFF beside the trimmed text is where they differ).
  it('shows, of a text with surrounding whitespace, the entities of the trimmed text', () => {
    const piece = fc.constantFrom(
      '@alice', '@alice@social.example', '@bob@remote.example:3000', '@', '#', '#Café', '#日本語', '#ＴＡＧ', 'x#y',
      'https://example.com/a_(b)', 'https://example.com/?a=1&b=2.', 'http://例え.jp', 'example.com', ':blobcat:', '👍🏽', 'e\u0301',
      ' ', '\n', '\r\n', '\t', '\u00a0', '\u3000', '\ufeff', '\u2028', '\u200b', '.', ',', '!', '(', ')', '"', '<', '&', 'a', '_', '/',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const { text, shown } = parseStatusText(pieces.join(''));
        expect(text.slice(shown.start, shown.end)).toBe(text.trim());
        const shifted = shown.entities.map((e) => ({ ...e, start: e.start - shown.start, end: e.end - shown.start }));
        expect(shifted).toEqual(extractEntities(text.trim()));
      }),
      { numRuns: 2000 },
    );
  });
});
