// GET /api/v1/accounts/:id/followers, /following and GET /api/v1/accounts/search.
import { handler as followersHandler } from '../../functions/accounts/followers';
import { handler as followingHandler } from '../../functions/accounts/following';
import { handler as searchHandler } from '../../functions/accounts/search';
import type { Account } from '../../lib/db/accounts';
import { aBareAccount, aFollow, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

type Listed = { id: string; username: string };
const ids = (body: Listed[]) => body.map((a) => a.id);
const newestFirst = (accounts: Account[]) => accounts.map((a) => a.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));

const list = (handler: typeof followersHandler, which: string, id: string, query: string | Record<string, string> = {}, token?: string) =>
  call(handler, { path: `/api/v1/accounts/${id}/${which}`, pathParameters: { id }, query, token });
const followers = (id: string, query?: string | Record<string, string>, token?: string) => list(followersHandler, 'followers', id, query, token);
const following = (id: string, query?: string | Record<string, string>, token?: string) => list(followingHandler, 'following', id, query, token);
const search = (query: string | Record<string, string>, token?: string) => call(searchHandler, { path: '/api/v1/accounts/search', query, token });

/** The `max_id` / `min_id` of a Link header relation. */
function linkParam(link: string | undefined, rel: 'next' | 'prev'): URLSearchParams | undefined {
  const part = (link ?? '').split(', ').find((p) => p.endsWith(`rel="${rel}"`));
  const url = part?.match(/<([^>]+)>/)?.[1];
  return url ? new URL(url).searchParams : undefined;
}

describe('GET /api/v1/accounts/:id/followers and /following', () => {
  let star: Account;
  let fans: Account[];
  beforeAll(async () => {
    star = await aBareAccount();
    fans = await Promise.all(Array.from({ length: 7 }, () => aBareAccount()));
    for (const fan of fans) {
      await aFollow(fan, star);
      await aFollow(star, fan);
    }
  });

  it('lists followers as Accounts, newest account first, with a Link header', async () => {
    const res = await followers(star.id);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(newestFirst(fans));
    expect(res.body[0]).toMatchObject({ username: expect.any(String), acct: expect.any(String), followers_count: expect.any(Number) });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.link).toContain(`https://social.example/api/v1/accounts/${star.id}/followers?`);
  });

  it.each([
    ['followers', followers],
    ['following', following],
  ])('walks %s page by page with the Link header, no gap and no duplicate', async (_name, fetch) => {
    const seen: string[] = [];
    let query: Record<string, string> = { limit: '3' };
    for (let i = 0; i < 5; i++) {
      const res = await fetch(star.id, query);
      expect(res.status).toBe(200);
      if (res.body.length === 0) break;
      seen.push(...ids(res.body));
      const next = linkParam(res.headers.link, 'next');
      expect(next?.get('limit')).toBe('3');
      query = Object.fromEntries(next!.entries());
    }
    expect(seen).toEqual(newestFirst(fans));

    // min_id: the page immediately newer than an id, newest first.
    const ordered = newestFirst(fans);
    const newer = await fetch(star.id, { min_id: ordered[4]!, limit: '2' });
    expect(ids(newer.body)).toEqual([ordered[2], ordered[3]]);
    const prev = linkParam(newer.headers.link, 'prev');
    expect(prev?.get('min_id')).toBe(ordered[2]);
    const since = await fetch(star.id, { since_id: ordered[4]!, limit: '2' });
    expect(ids(since.body)).toEqual([ordered[0], ordered[1]]);
  });

  it('defaults to 40 and caps limit at 80', async () => {
    const crowd = await aBareAccount();
    const many = await Promise.all(Array.from({ length: 82 }, () => aBareAccount()));
    await Promise.all(many.map((m) => aFollow(m, crowd)));
    expect((await followers(crowd.id)).body).toHaveLength(40);
    expect((await followers(crowd.id, { limit: '500' })).body).toHaveLength(80);
    expect((await followers(crowd.id, { limit: '0' })).body).toHaveLength(1);
  });

  it('answers an empty list, without a Link header, for an account nobody follows', async () => {
    const loner = await aBareAccount();
    const res = await following(loner.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.link).toBeUndefined();
  });

  it('leaves out followers whose account is not visible', async () => {
    const target = await aBareAccount();
    const pending = await aBareAccount({ approved: false });
    const shown = await aBareAccount();
    await aFollow(pending, target);
    await aFollow(shown, target);
    expect(ids((await followers(target.id)).body)).toEqual([shown.id]);
  });

  it.each([
    ['an unknown account', { id: '123456789012345' }, 404],
    ['a malformed id', { id: 'abc' }, 404],
    ['a pending account', { pending: true }, 404],
    ['limit not a number', { query: { limit: 'many' } }, 422],
    ['a negative limit', { query: { limit: '-1' } }, 422],
    ['max_id not an id', { query: { max_id: 'abc' } }, 422],
    ['min_id as a list', { query: 'min_id[]=1' }, 422],
  ])('answers an error for %s', async (_name, opts: { id?: string; pending?: boolean; query?: string | Record<string, string> }, status) => {
    const id = opts.pending ? (await aBareAccount({ approved: false })).id : opts.id ?? star.id;
    for (const fetch of [followers, following]) {
      const res = await fetch(id, opts.query);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('needs no token, but a token sent must be valid and hold read:accounts', async () => {
    expect((await followers(star.id, {}, 'bogus')).status).toBe(401);
    const { token } = await anAppToken(['write']);
    expect((await following(star.id, {}, token)).status).toBe(403);
    const reader = await anAppToken(['read:accounts']);
    expect((await following(star.id, {}, reader.token)).status).toBe(200);
  });
});

describe('GET /api/v1/accounts/search', () => {
  let viewer: UserFixture;
  let stem = '';
  let exact: Account;
  let longer: Account;
  let other: Account;
  beforeAll(async () => {
    viewer = await aUser();
    stem = `srch${Date.now().toString(36)}`;
    longer = await aBareAccount({ username: `${stem}_longer` });
    exact = await aBareAccount({ username: stem });
    other = await aBareAccount({ username: `${stem}zz` });
    await aBareAccount({ username: `${stem}_pending`, approved: false });
    await aFollow(viewer.account, other);
  });

  it('finds accounts by username prefix, exact match first, case-insensitively', async () => {
    const res = await search({ q: stem.toUpperCase() }, viewer.token);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([exact.id, longer.id, other.id]);
    expect(res.body[0]).toMatchObject({ username: stem, acct: stem });
  });

  it.each([
    ['@user', () => `@${stem}`],
    ['user@our domain', () => `${stem}@social.example`],
    ['@user@our domain', () => `@${stem}@social.example`],
  ])('accepts the %s form', async (_name, q) => {
    const res = await search({ q: q() }, viewer.token);
    expect(ids(res.body)[0]).toBe(exact.id);
  });

  it('limits, offsets and keeps to followed accounts when asked', async () => {
    expect(ids((await search({ q: stem, limit: '1' }, viewer.token)).body)).toEqual([exact.id]);
    expect(ids((await search({ q: stem, limit: '1', offset: '1' }, viewer.token)).body)).toEqual([longer.id]);
    expect(ids((await search({ q: stem, following: 'true' }, viewer.token)).body)).toEqual([other.id]);
    expect(ids((await search({ q: stem, resolve: 'true' }, viewer.token)).body)).toHaveLength(3);
  });

  it('caps limit at 80 and defaults to 40', async () => {
    const prefix = `many${Date.now().toString(36)}`;
    await Promise.all(Array.from({ length: 82 }, (_v, i) => aBareAccount({ username: `${prefix}${i}` })));
    expect((await search({ q: prefix }, viewer.token)).body).toHaveLength(40);
    expect((await search({ q: prefix, limit: '1000' }, viewer.token)).body).toHaveLength(80);
  });

  it.each([
    ['no q', {}],
    ['an empty q', { q: '' }],
    ['a remote domain (local usernames start with srch)', { q: 'srch@elsewhere.example' }],
    ['characters no username has', { q: 'a b/c' }],
    ['a name nobody has', { q: 'zzzz_nobody_here' }],
  ])('answers an empty list for %s', async (_name, query) => {
    const res = await search(query, viewer.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it.each([
    ['limit not a number', { limit: 'x' }],
    ['a negative offset', { offset: '-3' }],
    ['following not a boolean', { following: 'maybe' }],
    ['q too long', { q: 'a'.repeat(2001) }],
    ['q as a list', 'q[]=a'],
  ])('answers 422 for %s', async (_name, query) => {
    const res = await search(query, viewer.token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed/) });
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['a write-only token', async () => (await aUser({ scopes: ['write'] })).token, 403],
    ['an app token', async () => (await anAppToken(['read'])).token, 422],
  ])('refuses %s', async (_name, token, status) => {
    const res = await search({ q: stem }, await token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
