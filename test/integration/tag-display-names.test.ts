// A tag's display name is its spelling in the first status that uses it, kept when the fan-out worker
// counts the status's tags (lib/timelines/fanout_queue.ts tagNamesOf):
// - a local status's tags are named as posting parsed its text (twitter-text, on at most 2,500 characters),
//   wherever a link runs into a hashtag or a mention into a path;
// - a remote status's tags come from its ActivityPub tag list, and are named as its text spells them, read
//   word by word in time linear in the text (which may be 100,000 characters written to be costly).
import fc from 'fast-check';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { tagName } from '../../lib/db/tags';
import { registerInlineWorker } from '../../lib/queue';
import { parseStatusText, tagsOf } from '../../lib/text/status';
import { normalizeTag, tagNamesWritten } from '../../lib/text/tags';
import { tagNamesOf } from '../../lib/timelines/fanout_queue';
import { activity, aNote, receive } from '../support/activities';
import { call } from '../support/http';
import { aRemoteAccount, aUser, type UserFixture } from '../support/factories';

registerInlineWorker('fanout', fanoutWorker);

const WORDS = [
  '#tag', '#Tag', '#TAG', '#Ünïcödé', '#ünïcödé', '#日本語', '#tag_with_underscore', '#123', '#a·b', '＃Fullwidth', '#CamelCase', '#ﬁne',
  '#Ｆｕｌｌ', '#x\u200dy', '#café', '#cafe\u0301', '@alice', '@bob@remote.example', 'https://example.com/path?q=1#Frag', 'example.com/#Tag', 'https://example.com/#Tag', 'https://example.com/a_#Tag',
  'a&#tag', '&#Tag', 'x#Tag', '_#Tag', '😀#Tag', '$CASH', '(', ')', '.', ',', '!', '…', '\n', ' ', '\u00a0', '\u200b', '\ufe0f', 'word', 'مرحبا', '#مرحبا', '/', '.ab/',
];
/** Words glued together any way: a link or a mention may run into a hashtag. */
const text = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4 })), { maxLength: 20 }).map((parts) => parts.join(''));

const local = (input: string) => ({ uri: null, text: input, tags: tagsOf(parseStatusText(input)) });
type Remote = { uri: string; followersUrl: string };
/** A remote account as stored when its actor was fetched. */
const aRemote = async () => (await aRemoteAccount({ keyless: true })).account as Remote;
/** A public Note with this content and these hashtags, as a Mastodon server sends one. */
const aTaggedNote = (author: Remote, content: string, hashtags: string[]) =>
  aNote(author, { content, tag: hashtags.map((name) => ({ type: 'Hashtag', name, href: `${author.uri}/tags/${name.slice(1).toLowerCase()}` })) });

describe('tag display names', () => {
  let author: UserFixture;
  beforeAll(async () => {
    author = await aUser();
  });

  it('names a local status’s tags as posting parsed it, where a mention or a link runs into a path', () => {
    // @bob@remote.example is a mention, so remote.example/ starts no link and #Tag is a hashtag.
    expect([...tagNamesOf(local('@bob@remote.example/#Tag'))]).toEqual([['tag', 'Tag']]);
    // .ab is no top-level domain: word.ab/ is no link, #Tld a hashtag; example.com/#Frag is a link.
    expect([...tagNamesOf(local('word.ab/#Tld then #tld'))]).toEqual([['tld', 'Tld']]);
    expect([...tagNamesOf(local('example.com/#Frag and #frag'))]).toEqual([['frag', 'frag']]);
  });

  it('keeps the name a local status first spelled, through the fan-out worker', async () => {
    const suffix = Date.now().toString(36);
    const res = await call(postStatus, {
      method: 'POST',
      path: '/api/v1/statuses',
      json: { status: `see word.ab/#First${suffix}, then #FIRST${suffix} and example.com/#first${suffix}`, visibility: 'public' },
      token: author.token,
    });
    expect(res.status).toBe(200);
    expect(await tagName(`first${suffix}`)).toBe(`First${suffix}`);
  });

  it('names every tag of a generated local status, each by a spelling that normalises to it', () => {
    fc.assert(
      fc.property(text, (input) => {
        const { tags } = local(input);
        const names = tagNamesOf(local(input));
        expect([...names.keys()]).toEqual(tags);
        for (const [tag, name] of names) expect(normalizeTag(name)).toBe(tag);
      }),
      { numRuns: 2000 },
    );
  });

  it('names a remote status’s tags as its text spells them outside links, from the inbox through the fan-out worker', async () => {
    const suffix = Date.now().toString(36);
    const tag = `remote${suffix}`;
    const remote = await aRemote();
    const link = `https://remote.example/tags/#${tag.toUpperCase()}`;
    const content = `<p><a href="${link}">${link}</a> hello <a href="https://remote.example/tags/${tag}" class="mention hashtag" rel="tag">#<span>Remote${suffix}</span></a> #${tag}</p>`;
    expect(await receive(activity(remote, 'Create', aTaggedNote(remote, content, [`#Remote${suffix}`])))).toBe('applied');
    expect(await tagName(tag)).toBe(`Remote${suffix}`);
  });

  it('reads a long remote text written to be costly word by word, and names its tag', async () => {
        const remote = await aRemote();
    for (const [i, costly] of ['a.'.repeat(49_000), `${'a-'.repeat(48_990)}.com`, 'a.b/'.repeat(24_500)].entries()) {
      const name = `Costly${i}${Date.now().toString(36)}`;
      expect(await receive(activity(remote, 'Create', aTaggedNote(remote, `<p>${costly} #${name}</p>`, [`#${name}`])))).toBe('applied');
      expect(await tagName(normalizeTag(name))).toBe(name);
    }
    // Not a measure of speed (this takes a fifth of a second): a bound that a reading quadratic in the text cannot
    // keep (twitter-text takes 14 s on these three, the link expression it replaced 18).
  }, 10_000);

  it('names only stored tags, each by a name that normalises to it, the first spelling first', () => {
    fc.assert(
      fc.property(text, fc.array(fc.constantFrom('tag', 'ünïcödé', '日本語', 'other'), { maxLength: 3 }), (input, tags) => {
        for (const [tag, name] of tagNamesWritten(input, tags)) {
          expect(tags).toContain(tag);
          expect(normalizeTag(name)).toBe(tag);
        }
      }),
    );
    expect([...tagNamesWritten('#FirstWay then #firstway and #FIRSTWAY', ['firstway'])]).toEqual([['firstway', 'FirstWay']]);
    expect(tagNamesWritten('#Tag', []).size).toBe(0);
  });
});
