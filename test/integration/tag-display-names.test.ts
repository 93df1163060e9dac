// A tag's display name is its spelling in the first status that uses it, kept when the fan-out worker counts the
// status's tags. The spellings are stored with the status when it is written (lib/text/tags.ts tagged), and the
// fan-out reads them back, parsing nothing again:
// - a local status's tags are named as posting (or editing) parsed its text (twitter-text), wherever a link runs
//   into a hashtag or a mention into a path;
// - a remote status's tags are named as its Note's Hashtag tags name them, as Mastodon names them.
import fc from 'fast-check';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as editStatus } from '../../functions/statuses/update';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { tagName } from '../../lib/db/tags';
import { statusById } from '../../lib/db/statuses';
import { registerInlineWorker } from '../../lib/queue';
import { hashtagSpellings, parseStatusText, tagsOf } from '../../lib/text/status';
import { normalizeTag, tagged, tagNamesOf } from '../../lib/text/tags';
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

/** A local status's tags as posting stores them. */
const local = (input: string) => tagged(hashtagSpellings(parseStatusText(input)));
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

  it('stores the spellings with a posted status, and keeps the name it first spelled, through the fan-out worker', async () => {
    const suffix = Date.now().toString(36);
    const res = await call(postStatus, {
      method: 'POST',
      path: '/api/v1/statuses',
      json: { status: `see word.ab/#First${suffix}, then #FIRST${suffix} and example.com/#first${suffix} #Second${suffix}`, visibility: 'public' },
      token: author.token,
    });
    expect(res.status).toBe(200);
    const stored = await statusById(res.body.id);
    expect(stored).toMatchObject({ tags: [`first${suffix}`, `second${suffix}`], tagNames: [`First${suffix}`, `Second${suffix}`] });
    expect(await tagName(`first${suffix}`)).toBe(`First${suffix}`);

    // An edit stores the spellings of its own text.
    const edited = await call(editStatus, {
      method: 'PUT',
      path: `/api/v1/statuses/${res.body.id}`,
      pathParameters: { id: res.body.id },
      json: { status: `now #THIRD${suffix} and #first${suffix}` },
      token: author.token,
    });
    expect(edited.status).toBe(200);
    expect(await statusById(res.body.id)).toMatchObject({ tags: [`third${suffix}`, `first${suffix}`], tagNames: [`THIRD${suffix}`, `first${suffix}`] });
  });

  it('names every tag of a generated local status, each by a spelling that normalises to it, as the parse found the tags', () => {
    fc.assert(
      fc.property(text, (input) => {
        const status = local(input);
        expect(status.tags).toEqual(tagsOf(parseStatusText(input)));
        const names = tagNamesOf(status);
        expect([...names.keys()]).toEqual(status.tags);
        for (const [tag, name] of names) expect(normalizeTag(name)).toBe(tag);
      }),
      { numRuns: 2000 },
    );
  });

  it('names a remote status’s tags as its Note’s Hashtag tags name them, from the inbox through the fan-out worker', async () => {
    const suffix = Date.now().toString(36);
    const tag = `remote${suffix}`;
    const remote = await aRemote();
    const link = `https://remote.example/tags/#${tag.toUpperCase()}`;
    const content = `<p><a href="${link}">${link}</a> hello <a href="https://remote.example/tags/${tag}" class="mention hashtag" rel="tag">#<span>Remote${suffix}</span></a> #${tag}</p>`;
    expect(await receive(activity(remote, 'Create', aTaggedNote(remote, content, [`#Remote${suffix}`, `#REMOTE${suffix}`])))).toBe('applied');
    expect(await tagName(tag)).toBe(`Remote${suffix}`);
  });

  it('costs nothing more for a long remote text: the names come from the tags, not the text', async () => {
    const remote = await aRemote();
    for (const [i, costly] of ['a.'.repeat(49_000), `${'a-'.repeat(48_990)}.com`, 'a.b/'.repeat(24_500)].entries()) {
      const name = `Costly${i}${Date.now().toString(36)}`;
      expect(await receive(activity(remote, 'Create', aTaggedNote(remote, `<p>${costly} #${name}</p>`, [`#${name}`])))).toBe('applied');
      expect(await tagName(normalizeTag(name))).toBe(name);
    }
  }, 10_000);

  it('names a status stored before the spellings were by its stored tags', () => {
    expect([...tagNamesOf({ tags: ['caturday', 'cats'] })]).toEqual([['caturday', 'caturday'], ['cats', 'cats']]);
    // Spellings that do not match the tags (a record written half-way) are not trusted.
    expect([...tagNamesOf({ tags: ['caturday', 'cats'], tagNames: ['Caturday'] })]).toEqual([['caturday', 'caturday'], ['cats', 'cats']]);
  });

  it('keeps each tag once, the first spelling first, and at most the limit', () => {
    expect(tagged(['FirstWay', 'firstway', 'FIRSTWAY', 'Other'])).toEqual({ tags: ['firstway', 'other'], tagNames: ['FirstWay', 'Other'] });
    expect(tagged(['a', 'b', 'c'], 2)).toEqual({ tags: ['a', 'b'], tagNames: ['a', 'b'] });
  });
});
