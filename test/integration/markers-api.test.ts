import { handler as create } from '../../functions/markers/create';
import { handler as index } from '../../functions/markers/index';
import { markersOf } from '../../lib/db/markers';
import { call } from '../support/http';
import { anAppToken, aUser, type UserFixture } from '../support/factories';

const get = (token: string | undefined, query: Record<string, string | string[]> | string) =>
  call(index, { path: '/api/v1/markers', query, token });
const post = (token: string | undefined, body: { json?: unknown; form?: Record<string, string> }) =>
  call(create, { method: 'POST', path: '/api/v1/markers', token, ...body });

describe('POST /api/v1/markers and GET /api/v1/markers', () => {
  let user: UserFixture;

  beforeAll(async () => {
    user = await aUser();
  });

  it('answers no markers before any was saved', async () => {
    const res = await get(user.token, { timeline: ['home', 'notifications'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it('creates a marker at version 0 and counts each move', async () => {
    const first = await post(user.token, { form: { 'home[last_read_id]': '103206' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ home: { last_read_id: '103206', version: 0, updated_at: expect.any(String) } });
    expect(new Date(first.body.home.updated_at).toISOString()).toBe(first.body.home.updated_at);

    const second = await post(user.token, { json: { home: { last_read_id: '103210' } } });
    expect(second.body.home).toMatchObject({ last_read_id: '103210', version: 1 });

    const third = await post(user.token, { json: { home: { last_read_id: 103220 }, notifications: { last_read_id: '55' } } });
    expect(third.body).toEqual({
      home: { last_read_id: '103220', version: 2, updated_at: expect.any(String) },
      notifications: { last_read_id: '55', version: 0, updated_at: expect.any(String) },
    });

    const read = await get(user.token, { timeline: ['home', 'notifications'] });
    expect(read.body).toEqual(third.body);
  });

  it('leaves the version alone when the position does not change', async () => {
    const other = await aUser();
    await post(other.token, { json: { notifications: { last_read_id: '9' } } });
    const again = await post(other.token, { json: { notifications: { last_read_id: '9' } } });
    expect(again.body.notifications).toMatchObject({ last_read_id: '9', version: 0 });
  });

  it('counts every one of concurrent moves', async () => {
    const other = await aUser();
    await Promise.all(Array.from({ length: 8 }, (_, i) => post(other.token, { json: { home: { last_read_id: String(1000 + i) } } })));
    const [marker] = await markersOf(other.account.id);
    expect(marker!.version).toBe(7);
  });

  it('answers only the timelines asked for, ignoring unknown ones', async () => {
    const home = await get(user.token, 'timeline[]=home&timeline[]=lists');
    expect(Object.keys(home.body)).toEqual(['home']);
    const single = await get(user.token, { timeline: 'notifications' });
    expect(Object.keys(single.body)).toEqual(['notifications']);
    const none = await get(user.token, {});
    expect(none.body).toEqual({});
  });

  it('keeps one account\'s markers from another', async () => {
    const other = await aUser();
    const res = await get(other.token, { timeline: ['home', 'notifications'] });
    expect(res.body).toEqual({});
  });

  it('answers an empty object for a body naming no timeline, writing nothing', async () => {
    const other = await aUser();
    const res = await post(other.token, { json: { lists: { last_read_id: '5' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await markersOf(other.account.id)).toEqual([]);
  });

  it.each([
    ['a non-numeric id', { home: { last_read_id: 'abc' } }],
    ['a missing id', { home: {} }],
    ['a negative number', { home: { last_read_id: -4 } }],
    ['an unsafe number', { home: { last_read_id: 2 ** 60 } }],
    ['a too long id', { home: { last_read_id: '1'.repeat(21) } }],
    ['a string timeline', { home: '12' }],
    ['one bad timeline beside a good one', { home: { last_read_id: '1' }, notifications: { last_read_id: true } }],
  ])('answers 422 for %s and writes nothing', async (_n, json) => {
    const other = await aUser();
    const res = await post(other.token, { json });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed: /) });
    expect(await markersOf(other.account.id)).toEqual([]);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await call(create, { method: 'POST', path: '/api/v1/markers', token: user.token, body: { data: '{"home":', contentType: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([
    ['GET without a token', () => get(undefined, { timeline: 'home' }), 401, 'The access token is invalid'],
    ['POST without a token', () => post(undefined, { json: { home: { last_read_id: '1' } } }), 401, 'The access token is invalid'],
    ['GET with an app token', async () => get((await anAppToken(['read'])).token, { timeline: 'home' }), 422, 'This method requires an authenticated user'],
    ['GET with write scope only', async () => get((await aUser({ scopes: ['write'] })).token, { timeline: 'home' }), 403, 'This action is outside the authorized scopes'],
    ['POST with read scope only', async () => post((await aUser({ scopes: ['read'] })).token, { json: { home: { last_read_id: '1' } } }), 403, 'This action is outside the authorized scopes'],
    ['POST with write:accounts only', async () => post((await aUser({ scopes: ['write:accounts'] })).token, { json: { home: { last_read_id: '1' } } }), 403, 'This action is outside the authorized scopes'],
  ])('refuses %s', async (_n, request, status, error) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
  });

  it('accepts the granular scopes read:statuses and write:statuses', async () => {
    const narrow = await aUser({ scopes: ['read:statuses', 'write:statuses'] });
    expect((await post(narrow.token, { json: { home: { last_read_id: '7' } } })).status).toBe(200);
    expect((await get(narrow.token, { timeline: 'home' })).body.home.last_read_id).toBe('7');
  });
});
