// The fan-out worker names a status's tags as first written (lib/text/tags.ts tagDisplayNamesIn) from the
// tags the post stored, without twitter-text: it must name them as the parse at posting time does
// (lib/text/status.ts tagDisplayNames), on recorded tricky texts and on generated ones whose links stand
// apart from the next word. Where a link runs into a hashtag (https://example.com/#Tag#tag), twitter-text's
// idea of where the link ends decides, and a tag may keep another of its spellings: any name given is still
// one of the status's tags as written.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { normalizeTag, tagDisplayNamesIn } from '../../lib/text/tags';
import { parseStatusText, tagDisplayNames, tagsOf } from '../../lib/text/status';

const recorded = (JSON.parse(readFileSync('test/fixtures/status-text.json', 'utf8')) as { text: string }[]).map((r) => r.text);

const WORDS = [
  '#tag', '#Tag', '#TAG', '#Ünïcödé', '#ünïcödé', '#日本語', '#tag_with_underscore', '#123', '#a·b', '＃Fullwidth', '#CamelCase', '#ﬁne',
  '#Ｆｕｌｌ', '#x\u200dy', '#café', '#cafe\u0301', '@alice', '@bob@remote.example', 'https://example.com/path?q=1#Frag', 'example.com/#Tag', 'https://example.com/#Tag', 'https://example.com/a_#Tag',
  'a&#tag', '&#Tag', 'x#Tag', '_#Tag', '😀#Tag', '$CASH', '(', ')', '.', ',', '!', '…', '\n', ' ', '\u00a0', '\u200b', '\ufe0f', 'word', 'مرحبا', '#مرحبا',
];
const word = fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4 }));
/** Words glued together any way (a link may run into a hashtag). */
const text = fc.array(word, { maxLength: 20 }).map((parts) => parts.join(''));
/** Words glued together, but each link set apart by a space, as links are written. */
const LINKISH = /:\/\/|\.\p{L}{2,}\//u;
const prose = fc
  .array(word, { maxLength: 20 })
  .map((parts) => parts.map((p) => (LINKISH.test(p) ? ` ${p} ` : p)).join(''));

/** What the fan-out worker writes as each tag's name: the name found, else the stored tag. */
const named = (names: Map<string, string>, tags: string[]) => tags.map((tag) => names.get(tag) ?? tag);

describe('tag display names from the stored tags', () => {
  const agrees = (input: string) => {
    const tags = tagsOf(parseStatusText(input));
    expect(named(tagDisplayNamesIn(input, tags), tags)).toEqual(named(tagDisplayNames(input), tags));
  };

  it.each(recorded.map((t) => [JSON.stringify(t), t]))('names the tags of %s as the parse at posting does', (_name, input) => agrees(input));

  it('names the tags of generated texts with links set apart as the parse at posting does', () => {
    fc.assert(fc.property(prose, agrees), { numRuns: 5000 });
  });

  it('names only stored tags, each by a name that normalises to it', () => {
    fc.assert(
      fc.property(text, fc.array(fc.constantFrom('tag', 'ünïcödé', '日本語', 'other'), { maxLength: 3 }), (input, tags) => {
        for (const [tag, name] of tagDisplayNamesIn(input, tags)) {
          expect(tags).toContain(tag);
          expect(normalizeTag(name)).toBe(tag);
        }
      }),
    );
  });

  it('keeps the first spelling, and finds nothing for a status without tags', () => {
    expect([...tagDisplayNamesIn('#FirstWay then #firstway and #FIRSTWAY', ['firstway'])]).toEqual([['firstway', 'FirstWay']]);
    expect(tagDisplayNamesIn('#Tag', []).size).toBe(0);
  });
});
