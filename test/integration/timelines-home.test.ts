import { handler as home } from '../../functions/timelines/home';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { deleteItem } from '../../lib/db/table';
import * as keys from '../../lib/db/keys';
import { statusItem, type Status } from '../../lib/db/statuses';
import { newId } from '../../lib/ids';
import { sqsEvent } from '../../lib/queue';
import { call } from '../support/http';
import { aFollow, aPostedReblog, aPostedStatus, anAppToken, aUser, type UserFixture } from '../support/factories';

const fanOut = async (status: Status) => {
  const res = await fanoutWorker(sqsEvent('fanout', [{ type: 'create', statusId: status.id }]));
  expect(res.batchItemFailures).toEqual([]);
};

const get = (token: string | undefined, query: Record<string, string | string[]> | string = {}) =>
  call(home, { path: '/api/v1/timelines/home', query, token });

/** The query of a Link header's `rel` URL. */
function linkQuery(link: string | undefined, rel: 'next' | 'prev'): URLSearchParams {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '');
  if (!match) throw new Error(`no ${rel} link in ${link}`);
  return new URL(match[1]!).searchParams;
}

describe('GET /api/v1/timelines/home', () => {
  let reader: UserFixture;
  let author: UserFixture;
  let posted: Status[];

  beforeAll(async () => {
    reader = await aUser();
    author = await aUser();
    await aFollow(reader.account, author.account);
    // 45 statuses a millisecond apart, so their ids sort in posting order.
    const base = Date.now() - 60_000;
    posted = [];
    for (let i = 0; i < 45; i++) {
      const status = await aPostedStatus(author.account, { id: newId(base + i) });
      await fanOut(status);
      posted.push(status);
    }
    // 45 posts and fan-outs, one after another: on a loaded machine this has taken more than 30 s.
  }, 120_000);

  const newestFirst = () => [...posted].reverse().map((s) => s.id);

  it('answers the newest 20 statuses of followed accounts, rendered, with Link headers', async () => {
    const res = await get(reader.token);
    expect(res.status).toBe(200);
    expect(res.body.map((s: { id: string }) => s.id)).toEqual(newestFirst().slice(0, 20));
    expect(res.body[0]).toMatchObject({ id: posted[44]!.id, account: { id: author.account.id }, visibility: 'public' });
    expect(linkQuery(res.headers.link, 'next').get('max_id')).toBe(posted[25]!.id);
    expect(linkQuery(res.headers.link, 'prev').get('min_id')).toBe(posted[44]!.id);
  });

  it('walks the whole timeline with max_id and no duplicate or gap', async () => {
    const seen: string[] = [];
    let query: Record<string, string> = { limit: '7' };
    for (let pages = 0; pages < 20; pages++) {
      const res = await get(reader.token, query);
      expect(res.status).toBe(200);
      if (res.body.length === 0) {
        expect(res.headers.link).toBeUndefined();
        break;
      }
      seen.push(...res.body.map((s: { id: string }) => s.id));
      const next = linkQuery(res.headers.link, 'next');
      expect(next.get('limit')).toBe('7');
      query = Object.fromEntries(next.entries());
    }
    expect(seen).toEqual(newestFirst());
  });

  it('walks backwards with min_id, each page the one immediately newer', async () => {
    const pages: string[][] = [];
    let query: Record<string, string> = { min_id: '0', limit: '10' };
    for (let n = 0; n < 20; n++) {
      const res = await get(reader.token, query);
      if (res.body.length === 0) break;
      pages.push(res.body.map((s: { id: string }) => s.id));
      query = Object.fromEntries(linkQuery(res.headers.link, 'prev').entries());
    }
    // Each page is newest first; the first page holds the 10 oldest.
    expect(pages[0]).toEqual(posted.slice(0, 10).map((s) => s.id).reverse());
    expect(pages.flatMap((p) => [...p].reverse())).toEqual(posted.map((s) => s.id));
  });

  it('answers the newest statuses above since_id, and ranges between since_id and max_id', async () => {
    const since = await get(reader.token, { since_id: posted[40]!.id });
    expect(since.body.map((s: { id: string }) => s.id)).toEqual(newestFirst().slice(0, 4));
    const between = await get(reader.token, { since_id: posted[10]!.id, max_id: posted[14]!.id });
    expect(between.body.map((s: { id: string }) => s.id)).toEqual([posted[13]!.id, posted[12]!.id, posted[11]!.id]);
    const newest = await get(reader.token, { since_id: posted[10]!.id, limit: '3' });
    expect(newest.body.map((s: { id: string }) => s.id)).toEqual(newestFirst().slice(0, 3));
  });

  it.each([
    ['max_id=0', { max_id: '0' }],
    ['since_id above every id', { since_id: '99999999999999999999' }],
    ['since_id equal to max_id', { since_id: '5', max_id: '6' }],
  ])('answers an empty page without Link for an empty range (%s)', async (_n, query) => {
    const res = await get(reader.token, query);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.link).toBeUndefined();
  });

  it.each([
    ['limit above 40 is clamped to 40', { limit: '1000' }, 40],
    ['limit 0 answers one', { limit: '0' }, 1],
    ['the default limit is 20', {}, 20],
    ['local=true keeps local statuses', { local: 'true', limit: '5' }, 5],
  ])('%s', async (_n, query, count) => {
    const res = await get(reader.token, query);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(count);
  });

  it.each([
    ['a non-numeric max_id', { max_id: 'abc' }, /max_id/],
    ['a non-numeric since_id', { since_id: '12x' }, /since_id/],
    ['a too long min_id', { min_id: '1'.repeat(21) }, /min_id/],
    ['a negative limit', { limit: '-1' }, /limit/],
    ['a non-numeric limit', { limit: 'many' }, /limit/],
    ['a fractional limit', { limit: '2.5' }, /limit/],
    ['an array max_id', 'max_id[]=1&max_id[]=2', /max_id/],
    ['a non-boolean local', { local: 'maybe' }, /local/],
  ])('answers 422 for %s', async (_n, query, message) => {
    const res = await get(reader.token, query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
  });

  it('shows reblogs by followed accounts, and the reader\'s own statuses', async () => {
    const stranger = await aUser();
    const original = await aPostedStatus(stranger.account, { text: 'boost me' });
    const reblog = await aPostedReblog(author.account, original);
    await fanOut(reblog);
    const own = await aPostedStatus(reader.account);
    await fanOut(own);
    const res = await get(reader.token, { limit: '2' });
    expect(res.body.map((s: { id: string }) => s.id)).toEqual([own.id, reblog.id]);
    expect(res.body[1]).toMatchObject({ reblog: { id: original.id, account: { id: stranger.account.id } } });
  });

  it('leaves out entries whose status was deleted, and still pages past them', async () => {
    const user = await aUser();
    const writer = await aUser();
    await aFollow(user.account, writer.account);
    const kept = await aPostedStatus(writer.account, { id: newId(Date.now() - 2) });
    const gone = await aPostedStatus(writer.account, { id: newId(Date.now() - 1) });
    await fanOut(kept);
    await fanOut(gone);
    await deleteItem(keys.status(gone.id), statusItem);
    const first = await get(user.token, { limit: '1' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual([]);
    expect(linkQuery(first.headers.link, 'next').get('max_id')).toBe(gone.id);
    const second = await get(user.token, { limit: '1', max_id: gone.id });
    expect(second.body.map((s: { id: string }) => s.id)).toEqual([kept.id]);
  });

  it('costs one Query, one batch read of statuses and the rendering reads', async () => {
    process.env.EXPOSE_METRICS = '1';
    try {
      const res = await get(reader.token, { limit: '20' });
      expect(res.status).toBe(200);
      // token + account (auth) and the token's request counter (lib/http/ratelimit.ts, in parallel
      // with the token read), the Query, the statuses, the originals of reblogs not on the page, the
      // rendering's batch read. The viewer's block, blocked-by, mute and filter partitions are not read:
      // its account says they are empty (lib/db/viewer_summary.ts; test/integration/viewer-summary.test.ts).
      expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(7);
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
  });

  it.each([
    ['no token', async () => undefined, 401, 'The access token is invalid'],
    ['an unknown token', async () => 'not-a-token', 401, 'The access token is invalid'],
    ['an app token', async () => (await anAppToken(['read'])).token, 422, 'This method requires an authenticated user'],
    ['a token without read:statuses', async () => (await aUser({ scopes: ['read:accounts', 'write'] })).token, 403, 'This action is outside the authorized scopes'],
  ])('refuses %s', async (_n, token, status, error) => {
    const res = await get(await token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it('accepts a token with only read:statuses', async () => {
    const narrow = await aUser({ scopes: ['read:statuses'] });
    const res = await get(narrow.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});
