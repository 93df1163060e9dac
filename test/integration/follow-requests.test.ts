// GET /api/v1/follow_requests, POST /api/v1/follow_requests/:id/authorize and /reject.
import { z } from 'zod';
import { handler as authorizeHandler } from '../../functions/follow_requests/authorize';
import { handler as listHandler } from '../../functions/follow_requests/index';
import { handler as rejectHandler } from '../../functions/follow_requests/reject';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById, updateAccount, type Account } from '../../lib/db/accounts';
import { followEdge } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { query } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { anAppToken, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('notify', notifyWorker);

const anyItem = z.record(z.unknown());
const homeEntries = async (a: Account) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.homePartition(a.id) } }, anyItem)).items.map((e) => String(e.statusId));
const ids = (body: unknown) => z.array(z.object({ id: z.string() })).parse(body).map((x) => x.id);

const followCall = (id: string, token: string) => call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token });
const list = (token?: string, q: Record<string, string> = {}) => call(listHandler, { path: '/api/v1/follow_requests', query: q, token });
const authorizeCall = (id: string, token?: string) =>
  call(authorizeHandler, { method: 'POST', path: `/api/v1/follow_requests/${id}/authorize`, pathParameters: { id }, token });
const rejectCall = (id: string, token?: string) => call(rejectHandler, { method: 'POST', path: `/api/v1/follow_requests/${id}/reject`, pathParameters: { id }, token });

async function counters(a: Account) {
  const fresh = await accountById(a.id);
  return { followers: fresh?.followersCount, following: fresh?.followingCount, requests: fresh?.followRequestsCount };
}

let locked: UserFixture;
let alice: UserFixture;
let bob: UserFixture;
beforeEach(async () => {
  locked = await aUser();
  await updateAccount(locked.account.id, { locked: true });
  alice = await aUser();
  bob = await aUser();
  expect((await followCall(locked.account.id, alice.token)).body).toMatchObject({ requested: true });
  expect((await followCall(locked.account.id, bob.token)).body).toMatchObject({ requested: true });
});

describe('GET /api/v1/follow_requests', () => {
  it('lists the requesters, newest request first, with Link paging', async () => {
    const res = await list(locked.token);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([bob.account.id, alice.account.id]);
    expect(res.headers.link).toContain('rel="next"');
    const first = await list(locked.token, { limit: '1' });
    expect(ids(first.body)).toEqual([bob.account.id]);
    const maxId = /max_id=(\d+)/.exec(String(first.headers.link))?.[1];
    expect(maxId).toBeDefined();
    expect(ids((await list(locked.token, { limit: '1', max_id: maxId ?? '' })).body)).toEqual([alice.account.id]);
    expect(ids((await list(alice.token)).body)).toEqual([]);
  });
});

describe('POST /api/v1/follow_requests/:id/authorize', () => {
  it('turns the request into a follow with exact counters, backfills the follower’s home, answers the Relationship', async () => {
    const privateStatus = await aPostedStatus(locked.account, { visibility: 'private' });
    expect(await counters(locked.account)).toEqual({ followers: 0, following: 0, requests: 2 });
    const res = await authorizeCall(alice.account.id, locked.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: alice.account.id, followed_by: true, requested_by: false, following: false });
    expect(await followEdge(alice.account.id, locked.account.id)).toBeDefined();
    expect(await counters(locked.account)).toEqual({ followers: 1, following: 0, requests: 1 });
    expect(await counters(alice.account)).toMatchObject({ following: 1 });
    expect(await homeEntries(alice.account)).toContain(privateStatus.id);
    expect(ids((await list(locked.token)).body)).toEqual([bob.account.id]);
    const seen = (await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id: locked.account.id }, token: alice.token })).body;
    expect(seen).toMatchObject([{ following: true, requested: false }]);
  });
});

describe('POST /api/v1/follow_requests/:id/reject', () => {
  it('deletes the request and decrements the counter, creating no follow', async () => {
    const res = await rejectCall(bob.account.id, locked.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, followed_by: false, requested_by: false });
    expect(await followEdge(bob.account.id, locked.account.id)).toBeUndefined();
    expect(await counters(locked.account)).toEqual({ followers: 0, following: 0, requests: 1 });
    expect(ids((await list(locked.token)).body)).toEqual([alice.account.id]);
  });
});

describe('bad input', () => {
  const cases: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
    ['authorize of an unknown account', () => authorizeCall('99999999999', locked.token), 404],
    ['authorize of a malformed id', () => authorizeCall('nope', locked.token), 404],
    ['authorize of an account that did not ask', () => authorizeCall(locked.account.id, alice.token), 404],
    ['authorize of a request to someone else', () => authorizeCall(alice.account.id, bob.token), 404],
    ['authorize without a token', () => authorizeCall(alice.account.id), 401],
    ['reject of an unknown account', () => rejectCall('99999999999', locked.token), 404],
    ['reject of a malformed id', () => rejectCall('1x', locked.token), 404],
    ['reject without a token', () => rejectCall(alice.account.id), 401],
    ['list with a malformed max_id', () => list(locked.token, { max_id: 'abc' }), 422],
    ['list with a non-numeric limit', () => list(locked.token, { limit: 'many' }), 422],
    ['list without a token', () => list(), 401],
  ];
  it.each(cases)('%s → 4xx {"error"} and nothing changed', async (_name, run, status) => {
    const res = await run();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await counters(locked.account)).toEqual({ followers: 0, following: 0, requests: 2 });
    expect(await followEdge(alice.account.id, locked.account.id)).toBeUndefined();
    expect(ids((await list(locked.token)).body)).toEqual([bob.account.id, alice.account.id]);
  });

  it('a second authorize or a reject after authorize answers 404 and counts nothing twice', async () => {
    expect((await authorizeCall(alice.account.id, locked.token)).status).toBe(200);
    expect((await authorizeCall(alice.account.id, locked.token)).status).toBe(404);
    expect((await rejectCall(alice.account.id, locked.token)).status).toBe(404);
    expect(await counters(locked.account)).toEqual({ followers: 1, following: 0, requests: 1 });
  });

  it.each([
    ['authorize', ['read:follows']],
    ['reject', ['write:blocks']],
    ['list', ['write:follows']],
  ] as const)('%s with %p → 403', async (action, scopes) => {
    const weak = await aUser({ scopes: [...scopes] });
    const res = action === 'list' ? await list(weak.token) : action === 'authorize' ? await authorizeCall(alice.account.id, weak.token) : await rejectCall(alice.account.id, weak.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([['follow'], ['read:follows']] as const)('the list is allowed with %s', async (scope) => {
    const user = await aUser({ scopes: [scope] });
    expect((await list(user.token)).status).toBe(200);
  });
});

describe('bad input on every follow request endpoint (audit)', () => {
  type Res = { status: number; body: unknown };
  /** The state set up in beforeEach: two pending requests to `locked`, no follow. */
  async function expectUnchanged() {
    expect(await counters(locked.account)).toEqual({ followers: 0, following: 0, requests: 2 });
    expect(await followEdge(alice.account.id, locked.account.id)).toBeUndefined();
    expect(await followEdge(bob.account.id, locked.account.id)).toBeUndefined();
    expect(ids((await list(locked.token)).body)).toEqual([bob.account.id, alice.account.id]);
  }

  const endpoints: [string, (token?: string) => Promise<Res>][] = [
    ['GET /api/v1/follow_requests', (token) => list(token)],
    ['POST /api/v1/follow_requests/:id/authorize', (token) => authorizeCall(alice.account.id, token)],
    ['POST /api/v1/follow_requests/:id/reject', (token) => rejectCall(alice.account.id, token)],
  ];

  it.each(endpoints)('%s refuses a missing (401), invalid (401) and app (422) token, changing nothing', async (_name, run) => {
    const app = await anAppToken(['read', 'write', 'follow']);
    const answers = [await run(undefined), await run('not-a-token'), await run(`${locked.token}x`), await run(app.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 422]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    await expectUnchanged();
  });

  it.each([
    ['authorize', ['read:follows', 'write:blocks', 'write:mutes']],
    ['authorize', ['read']],
    ['reject', ['read:follows', 'write:statuses']],
    ['list', ['read:blocks', 'read:mutes', 'write']],
  ] as const)('%s with %p → 403, changing nothing', async (action, scopes) => {
    // The locked account itself holds the weak token, so only the scope stands in the way.
    const { issueAccessToken } = await import('../../lib/tokens');
    const { raw } = await issueAccessToken(locked.app, locked.account.id, [...scopes]);
    const res = action === 'list' ? await list(raw) : action === 'authorize' ? await authorizeCall(alice.account.id, raw) : await rejectCall(alice.account.id, raw);
    expect([res.status, res.body]).toEqual([403, { error: expect.any(String) }]);
    await expectUnchanged();
  });

  it.each([
    ['authorize', ['write:follows']],
    ['reject', ['follow']],
    ['list', ['read']],
  ] as const)('%s is allowed with %p', async (action, scopes) => {
    const { issueAccessToken } = await import('../../lib/tokens');
    const { raw } = await issueAccessToken(locked.app, locked.account.id, [...scopes]);
    const res = action === 'list' ? await list(raw) : action === 'authorize' ? await authorizeCall(alice.account.id, raw) : await rejectCall(alice.account.id, raw);
    expect(res.status).toBe(200);
  });

  it.each([
    ['an oversized id', '123456789012345678901'],
    ['a negative id', '-1'],
    ['a fractional id', '1.5'],
    ['a blank id', ' '],
    ['the caller’s own id', 'self'],
  ])('authorize and reject of %s → 404, changing nothing', async (_name, raw) => {
    const id = raw === 'self' ? locked.account.id : raw;
    for (const res of [await authorizeCall(id, locked.token), await rejectCall(id, locked.token)]) {
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    }
    await expectUnchanged();
  });

  it('a request to someone else cannot be rejected either (404), and theirs stays pending', async () => {
    const res = await rejectCall(alice.account.id, bob.token);
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    await expectUnchanged();
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '1.5' }],
    ['an overflowing limit', { limit: '1e400' }],
    ['a malformed since_id', { since_id: 'x' }],
    ['a malformed min_id', { min_id: '1-2' }],
    ['an oversized max_id', { max_id: '123456789012345678901' }],
  ])('list with %s → 422', async (_name, q) => {
    const res = await list(locked.token, q);
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
  });

  it('an inverted id range is an empty page, not an error', async () => {
    const res = await list(locked.token, { max_id: '1', min_id: '99999999999999999999' });
    expect([res.status, res.body]).toEqual([200, []]);
  });
});
