// GET /api/v2/search, and the removed GET /api/v1/search and /api/v1/timelines/direct.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as create } from '../../functions/statuses/create';
import { handler as search } from '../../functions/search/v2';
import { handler as notFoundHandler } from '../../functions/system/not_found';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { block } from '../../lib/graph/blocks';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, anAppToken, aUser, type UserFixture } from '../support/factories';
import { storedItemCount } from '../support/items';
import { call } from '../support/http';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const post = async (user: UserFixture, status: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: { status, ...extra }, token: user.token });
  expect(res.status).toBe(200);
  return res.body.id;
};
const find = (token: string, query: Record<string, string>) => call(search, { path: '/api/v2/search', query, token });
const statusIds = (body: { statuses: { id: string }[] }) => body.statuses.map((s) => s.id);

let alice: UserFixture;
let bob: UserFixture;
let carol: UserFixture;
let aliceZebra: string;
let bobZebraCrossing: string;
let bobPrivateZebra: string;
let aliceDirectToCarol: string;
let aliceOwnPrivate: string;
let tagged: string;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    aUser({ username: 'searchalice' }),
    aUser({ username: 'searchbob' }),
    aUser({ username: 'searchcarol' }),
  ]);
  await aFollow(carol.account, bob.account);
  aliceZebra = await post(alice, 'A Zebra walked by');
  bobZebraCrossing = await post(bob, 'zebra crossing at the corner, zebra!');
  bobPrivateZebra = await post(bob, 'secret zebra plans', { visibility: 'private' });
  aliceDirectToCarol = await post(alice, '@searchcarol the zebra is ready', { visibility: 'direct' });
  aliceOwnPrivate = await post(alice, 'my private crossing notes', { visibility: 'private' });
  tagged = await post(bob, 'loving #Photography and #photos today');
});

describe('GET /api/v2/search statuses', () => {
  it('finds public statuses by a word, case-insensitively, newest first, rendered', async () => {
    const res = await find(carol.token, { q: 'ZEBRA', type: 'statuses' });
    expect(res.status).toBe(200);
    expect(statusIds(res.body)).toEqual([bobZebraCrossing, aliceZebra]);
    expect(res.body.statuses[0]).toMatchObject({ id: bobZebraCrossing, account: { id: bob.account.id }, visibility: 'public' });
    expect(res.body).toMatchObject({ accounts: [], hashtags: [] });
  });

  it('adds the searcher\'s own statuses of every visibility, and nobody else\'s non-public ones', async () => {
    const asBob = await find(bob.token, { q: 'zebra', type: 'statuses' });
    expect(statusIds(asBob.body)).toEqual([bobPrivateZebra, bobZebraCrossing, aliceZebra]);
    const asAlice = await find(alice.token, { q: 'zebra', type: 'statuses' });
    expect(statusIds(asAlice.body)).toEqual([aliceDirectToCarol, bobZebraCrossing, aliceZebra]);
  });

  it('requires every word of the query (AND)', async () => {
    const asCarol = await find(carol.token, { q: 'zebra crossing', type: 'statuses' });
    expect(statusIds(asCarol.body)).toEqual([bobZebraCrossing]);
    const asAlice = await find(alice.token, { q: 'crossing', type: 'statuses' });
    expect(statusIds(asAlice.body)).toEqual([aliceOwnPrivate, bobZebraCrossing]);
    const none = await find(carol.token, { q: 'zebra unicorn', type: 'statuses' });
    expect(statusIds(none.body)).toEqual([]);
  });

  it('leaves out statuses of accounts the searcher blocked', async () => {
    const dave = await aUser();
    await block(dave.account, bob.account.id);
    const res = await find(dave.token, { q: 'zebra', type: 'statuses' });
    expect(statusIds(res.body)).toEqual([aliceZebra]);
  });

  it.each([
    ['limit', () => ({ limit: '1' }), () => [bobZebraCrossing]],
    ['offset', () => ({ offset: '1' }), () => [aliceZebra]],
    ['account_id', () => ({ account_id: alice.account.id }), () => [aliceZebra]],
    ['max_id', () => ({ max_id: bobZebraCrossing }), () => [aliceZebra]],
    ['min_id', () => ({ min_id: aliceZebra }), () => [bobZebraCrossing]],
  ])('pages and filters with %s', async (_name, query, expected) => {
    const res = await find(carol.token, { q: 'zebra', type: 'statuses', ...query() });
    expect(res.status).toBe(200);
    expect(statusIds(res.body)).toEqual(expected());
  });
});

describe('GET /api/v2/search accounts and hashtags', () => {
  it('finds accounts by username prefix, the exact one first', async () => {
    const res = await find(carol.token, { q: 'searchbob', type: 'accounts' });
    expect(res.body.accounts.map((a: { id: string }) => a.id)).toEqual([bob.account.id]);
    const all = await find(carol.token, { q: '@search', type: 'accounts' });
    expect(all.body.accounts.map((a: { username: string }) => a.username).sort()).toEqual(['searchalice', 'searchbob', 'searchcarol']);
    const following = await find(carol.token, { q: 'search', type: 'accounts', following: 'true' });
    expect(following.body.accounts.map((a: { id: string }) => a.id)).toEqual([bob.account.id]);
  });

  it('finds accounts by display-name word prefixes, following renames', async () => {
    const rename = async (user: UserFixture, display_name: string) => {
      const res = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { display_name }, token: user.token });
      expect(res.status).toBe(200);
    };
    await rename(alice, 'Wanda Quillfeather');
    await rename(bob, 'Quentin Wanderer');
    const names = async (q: string, extra: Record<string, string> = {}) =>
      (await find(carol.token, { q, type: 'accounts', ...extra })).body.accounts.map((a: { id: string }) => a.id).sort();
    expect(await names('quill')).toEqual([alice.account.id]);
    expect(await names('WAND')).toEqual([alice.account.id, bob.account.id].sort());
    expect(await names('wand quent')).toEqual([bob.account.id]);
    expect(await names('wand', { following: 'true' })).toEqual([bob.account.id]);
    await rename(alice, 'Plain Name');
    expect(await names('quill')).toEqual([]);
    expect(await names('plain')).toEqual([alice.account.id]);
  });

  it('finds hashtags by prefix, the exact tag first, with seven days of history', async () => {
    const res = await find(carol.token, { q: '#photos', type: 'hashtags' });
    expect(res.body.hashtags.map((t: { name: string }) => t.name)).toEqual(['photos']);
    const prefix = await find(carol.token, { q: 'PHOTO', type: 'hashtags' });
    expect(prefix.body.hashtags.map((t: { name: string }) => t.name)).toEqual(['photography', 'photos']);
    expect(prefix.body.hashtags[0].url).toMatch(/\/tags\/photography$/);
    expect(prefix.body.hashtags[0].history).toHaveLength(7);
    expect(prefix.body.hashtags[0].history[0]).toEqual({ day: expect.stringMatching(/^\d+$/), uses: '1', accounts: '1' });
    expect(prefix.body.hashtags[0].history[1]).toMatchObject({ uses: '0', accounts: '0' });
    expect(tagged).toBeDefined();
  });

  it('searches every type when no type is given, and nothing for a blank query', async () => {
    const res = await find(alice.token, { q: 'photos' });
    expect(res.status).toBe(200);
    expect(res.body.hashtags.map((t: { name: string }) => t.name)).toEqual(['photos']);
    expect(statusIds(res.body)).toEqual([tagged]);
    expect(res.body.accounts).toEqual([]);
    const blank = await find(alice.token, { q: '  ' });
    expect(blank.body).toEqual({ accounts: [], statuses: [], hashtags: [] });
  });

  it('accepts resolve and exclude_unreviewed, answering from local data', async () => {
    const res = await find(alice.token, { q: 'searchbob@elsewhere.example', resolve: 'true', exclude_unreviewed: 'true' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accounts: [], statuses: [], hashtags: [] });
  });
});

describe('GET /api/v2/search bad input', () => {
  it.each([
    ['an unknown type', { q: 'zebra', type: 'people' }, 422],
    ['a non-numeric limit', { q: 'zebra', limit: 'many' }, 422],
    ['a negative offset', { q: 'zebra', offset: '-1' }, 422],
    ['a malformed account_id', { q: 'zebra', account_id: 'abc' }, 422],
    ['a malformed max_id', { q: 'zebra', max_id: '1; drop' }, 422],
    ['a malformed min_id', { q: 'zebra', min_id: 'x' }, 422],
    ['a non-boolean following', { q: 'zebra', following: 'perhaps' }, 422],
    ['an oversized q', { q: 'z'.repeat(2001) }, 422],
  ])('answers %s with a 4xx error', async (_name, query, status) => {
    const res = await find(alice.token, query);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('rejects missing, wrong-scope and app tokens, and writes nothing', async () => {
    const before = await itemCount();
    expect((await call(search, { path: '/api/v2/search', query: { q: 'zebra' } })).status).toBe(401);
    const writeOnly = await aUser({ scopes: ['write'] });
    const wrongScope = await find(writeOnly.token, { q: 'zebra' });
    expect(wrongScope.status).toBe(403);
    expect(wrongScope.body).toEqual({ error: expect.any(String) });
    const app = await anAppToken(['read']);
    expect((await find(app.token, { q: 'zebra' })).status).toBe(422);
    const scoped = await aUser({ scopes: ['read:search'] });
    expect((await find(scoped.token, { q: 'zebra' })).status).toBe(200);
    // Only the two users' own records were added; searching itself writes nothing.
    const writtenBySearch = (await itemCount()) - before;
    const afterUsers = await itemCount();
    await find(alice.token, { q: 'zebra' });
    await find(alice.token, { q: 'zebra', type: 'people' });
    expect(await itemCount()).toBe(afterUsers);
    expect(writtenBySearch).toBeGreaterThan(0);
  });
});

describe('removed endpoints', () => {
  it.each([
    ['GET /api/v1/search', '/api/v1/search', { q: 'zebra' }],
    ['GET /api/v1/timelines/direct', '/api/v1/timelines/direct', {}],
  ])('%s answers 404 as Mastodon 3.x', async (_name, path, query) => {
    const res = await call(notFoundHandler, { path, query, token: alice.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
    // No function claims the route, so API Gateway hands it to the catch-all.
    expect(declaredRoutes()).not.toContain(`GET ${path}`);
    expect(declaredRoutes()).toContain('GET /api/v2/search');
  });
});

/** Every `httpApi` route declared in functions/<group>/functions.yml, as `METHOD /path`. */
function declaredRoutes(): string[] {
  const routes: string[] = [];
  for (const group of readdirSync('functions')) {
    const file = join('functions', group, 'functions.yml');
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const short = line.match(/httpApi:\s*['"]?([A-Z*][^'"]*)['"]?\s*$/);
      const long = line.match(/httpApi:\s*\{\s*method:\s*['"]?(\w+)['"]?,\s*path:\s*['"]?([^'"\s}]+)/);
      if (long) routes.push(`${long[1]!.toUpperCase()} ${long[2]}`);
      else if (short) routes.push(short[1]!.trim());
    }
  }
  return routes;
}

const itemCount = storedItemCount;

describe('GET /api/v2/search bad input (audit)', () => {
  it.each([
    ['a negative limit', { q: 'zebra', limit: '-1' }],
    ['a fractional limit', { q: 'zebra', limit: '1.5' }],
    ['an overflowing limit', { q: 'zebra', limit: '1e400' }],
    ['a non-numeric offset', { q: 'zebra', offset: 'next' }],
    ['an offset beyond 10000', { q: 'zebra', offset: '10001' }],
    ['a non-boolean resolve', { q: 'zebra', resolve: 'maybe' }],
    ['a non-boolean exclude_unreviewed', { q: 'zebra', exclude_unreviewed: '2' }],
    ['an oversized account_id', { q: 'zebra', account_id: '123456789012345678901' }],
    ['a type given twice', 'q=zebra&type=accounts&type=statuses'],
    ['a q given as an object', 'q[a]=zebra'],
  ])('answers %s with 422 and writes nothing', async (_name, query) => {
    const before = await itemCount();
    const res = await call(search, { path: '/api/v2/search', query, token: alice.token });
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    expect(await itemCount()).toBe(before);
  });

  it('refuses an invalid token (401) and a token holding only other read scopes (403)', async () => {
    const others = await aUser({ scopes: ['read:statuses', 'read:accounts', 'read:follows'] });
    const before = await itemCount();
    for (const [token, status] of [['not-a-token', 401], [`${alice.token}x`, 401], [others.token, 403]] as const) {
      const res = await find(token, { q: 'zebra' });
      expect([res.status, res.body]).toEqual([status, { error: expect.any(String) }]);
    }
    expect(await itemCount()).toBe(before);
  });

  it('an unknown account_id or an inverted id range finds nothing, without an error', async () => {
    const queries: Record<string, string>[] = [{ account_id: '99999999999999999999' }, { max_id: '1', min_id: '99999999999999999999' }, { max_id: '0' }];
    for (const query of queries) {
      const res = await find(carol.token, { q: 'zebra', type: 'statuses', ...query });
      expect([res.status, statusIds(res.body)]).toEqual([200, []]);
    }
  });
});
