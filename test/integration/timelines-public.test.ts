import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as tagTimeline } from '../../functions/timelines/tag';
import type { Status } from '../../lib/db/statuses';
import { newId } from '../../lib/ids';
import { call } from '../support/http';
import { aPostedReblog, aPostedStatus, anAppToken, aUser, type UserFixture } from '../support/factories';

const ids = (body: { id: string }[]) => body.map((s) => s.id);

const getPublic = (query: Record<string, string | string[]> | string = {}, token?: string) =>
  call(publicTimeline, { path: '/api/v1/timelines/public', query, token });

const getTag = (hashtag: string, query: Record<string, string | string[]> | string = {}, token?: string) =>
  call(tagTimeline, { path: `/api/v1/timelines/tag/${encodeURIComponent(hashtag)}`, pathParameters: { hashtag: encodeURIComponent(hashtag) }, query, token });

function linkQuery(link: string | undefined, rel: 'next' | 'prev'): Record<string, string | string[]> {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '');
  if (!match) throw new Error(`no ${rel} link in ${link}`);
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URL(match[1]!).searchParams) {
    if (k.endsWith('[]')) out[k.slice(0, -2)] = [...((out[k.slice(0, -2)] as string[] | undefined) ?? []), v];
    else out[k] = v;
  }
  return out;
}

let author: UserFixture;
let at = Date.now() - 600_000;
const post = (overrides: Partial<Status> = {}) => aPostedStatus(author.account, { id: newId(at++), ...overrides });

beforeAll(async () => {
  author = await aUser();
});

describe('GET /api/v1/timelines/public', () => {
  let shown: Status[];
  let withMedia: Status[];

  beforeAll(async () => {
    const other = await aUser();
    shown = [];
    withMedia = [];
    withMedia.push(await post({ mediaIds: [newId()] }));
    // Thirty statuses without media between the two with media: only_media must read past them.
    for (let i = 0; i < 30; i++) shown.push(await post());
    withMedia.push(await post({ mediaIds: [newId()] }));
    await post({ visibility: 'unlisted' });
    await post({ visibility: 'private' });
    await post({ visibility: 'direct' });
    const parent = await aPostedStatus(other.account, { id: newId(at++) });
    await post({ inReplyToId: parent.id, inReplyToAccountId: other.account.id, conversationId: parent.id });
    await aPostedReblog(other.account, shown[0]!);
    shown = [withMedia[0]!, ...shown, withMedia[1]!, parent];
  });

  it('answers public statuses without a token, newest first, leaving out unlisted, private, direct, reblogs and replies to others', async () => {
    const res = await getPublic({ limit: '40' });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(shown.map((s) => s.id).reverse());
    expect(res.headers.link).toContain('rel="next"');
  });

  it('answers the same for local=true (every status is local)', async () => {
    const res = await getPublic({ local: 'true', limit: '40' });
    expect(ids(res.body)).toEqual(shown.map((s) => s.id).reverse());
  });

  it('reads past statuses without media until the only_media page is full', async () => {
    const res = await getPublic({ only_media: 'true', limit: '2' });
    expect(ids(res.body)).toEqual([withMedia[1]!.id, withMedia[0]!.id]);
    const next = await getPublic(linkQuery(res.headers.link, 'next'));
    expect(next.body).toEqual([]);
  });

  it('walks the public timeline with max_id and back with min_id, with no duplicate or gap', async () => {
    const forward: string[] = [];
    let query: Record<string, string | string[]> = { limit: '6' };
    for (let n = 0; n < 20; n++) {
      const res = await getPublic(query);
      if (res.body.length === 0) break;
      forward.push(...ids(res.body));
      query = linkQuery(res.headers.link, 'next');
    }
    expect(forward).toEqual(shown.map((s) => s.id).reverse());
    const backward: string[] = [];
    query = { limit: '6', min_id: '0' };
    for (let n = 0; n < 20; n++) {
      const res = await getPublic(query);
      if (res.body.length === 0) break;
      backward.push(...ids(res.body).reverse());
      query = linkQuery(res.headers.link, 'prev');
    }
    expect(backward).toEqual(shown.map((s) => s.id));
  });

  it('keeps only_media in the Link header', async () => {
    const res = await getPublic({ only_media: 'true', limit: '1' });
    expect(linkQuery(res.headers.link, 'next')).toMatchObject({ only_media: 'true', limit: '1', max_id: withMedia[1]!.id });
  });

  it.each([
    ['a non-numeric max_id', { max_id: 'latest' }],
    ['a non-numeric min_id', { min_id: '-1' }],
    ['a negative limit', { limit: '-5' }],
    ['a non-boolean only_media', { only_media: 'sometimes' }],
    ['a non-boolean local', { local: '2' }],
  ])('answers 422 for %s', async (_n, query) => {
    const res = await getPublic(query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed: /) });
  });

  it('clamps limit to 40', async () => {
    const res = await getPublic({ limit: '41' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(Math.min(40, shown.length));
  });

  it.each([
    ['an unknown token', async () => 'nope', 401, 'The access token is invalid'],
    ['a token without read:statuses', async () => (await anAppToken(['write'])).token, 403, 'This action is outside the authorized scopes'],
  ])('refuses %s even with public preview on', async (_n, token, status, error) => {
    const res = await getPublic({}, await token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it('renders the viewer\'s flags for a user token', async () => {
    const viewer = await aUser();
    const res = await getPublic({ limit: '1' }, viewer.token);
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ favourited: false, reblogged: false, bookmarked: false });
  });
});

describe('GET /api/v1/timelines/tag/:hashtag', () => {
  let cats: Status;
  let dogs: Status;
  let both: Status;
  let catsWithMedia: Status;
  let birds: Status;

  beforeAll(async () => {
    cats = await post({ tags: ['cats'] });
    dogs = await post({ tags: ['dogs'] });
    both = await post({ tags: ['cats', 'dogs'] });
    catsWithMedia = await post({ tags: ['cats', 'photo'], mediaIds: [newId()] });
    birds = await post({ tags: ['birds', 'dogs'] });
    await post({ tags: ['cats'], visibility: 'unlisted' });
  });

  it('answers public statuses with the tag, newest first', async () => {
    const res = await getTag('cats');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([catsWithMedia.id, both.id, cats.id]);
  });

  it.each([
    ['upper case', 'CATS'],
    ['a leading #', '#cats'],
    ['full-width letters (NFKC)', 'ｃａｔｓ'],
  ])('normalises the tag name (%s)', async (_n, name) => {
    const res = await getTag(name);
    expect(ids(res.body)).toEqual([catsWithMedia.id, both.id, cats.id]);
  });

  it('answers an empty list for a tag nobody used', async () => {
    const res = await getTag('nobodyusesthis');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('merges any[] tags by id, each status once', async () => {
    const res = await getTag('cats', { any: ['dogs'] });
    expect(ids(res.body)).toEqual([birds.id, catsWithMedia.id, both.id, dogs.id, cats.id]);
  });

  it('pages the any[] union with no duplicate or gap', async () => {
    const seen: string[] = [];
    let query: Record<string, string | string[]> = { any: ['dogs'], limit: '2' };
    for (let n = 0; n < 10; n++) {
      const res = await getTag('cats', query);
      if (res.body.length === 0) break;
      seen.push(...ids(res.body));
      query = linkQuery(res.headers.link, 'next');
      expect(query.any).toEqual(['dogs']);
    }
    expect(seen).toEqual([birds.id, catsWithMedia.id, both.id, dogs.id, cats.id]);
  });

  it('keeps only statuses having every all[] tag', async () => {
    const res = await getTag('cats', { all: ['dogs'] });
    expect(ids(res.body)).toEqual([both.id]);
  });

  it('leaves out statuses with any none[] tag', async () => {
    const res = await getTag('cats', { none: ['dogs', 'photo'] });
    expect(ids(res.body)).toEqual([cats.id]);
  });

  it('combines any[], all[] and none[] as Mastodon', async () => {
    const res = await getTag('cats', { any: ['birds'], all: ['dogs'], none: ['photo'] });
    expect(ids(res.body)).toEqual([birds.id, both.id]);
  });

  it('accepts a single any value without brackets', async () => {
    const res = await getTag('birds', 'any=cats&limit=1');
    expect(ids(res.body)).toEqual([birds.id]);
  });

  it('filters on media with only_media', async () => {
    const res = await getTag('cats', { only_media: '1' });
    expect(ids(res.body)).toEqual([catsWithMedia.id]);
  });

  it('pages backwards with min_id', async () => {
    const res = await getTag('cats', { min_id: cats.id, limit: '1' });
    expect(ids(res.body)).toEqual([both.id]);
  });

  it.each([
    ['an oversized tag', 'x'.repeat(201), {}],
    ['an array of objects for any[]', 'cats', 'any[][a]=b'],
    ['an oversized none[] tag', 'cats', { none: ['y'.repeat(201)] }],
    ['a non-numeric since_id', 'cats', { since_id: 'x' }],
    ['a non-boolean only_media', 'cats', { only_media: 'perhaps' }],
  ])('answers 422 for %s', async (_n, tag, query) => {
    const res = await getTag(tag, query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed: /) });
  });
});
