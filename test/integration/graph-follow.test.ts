// POST /api/v1/accounts/:id/follow, /unfollow and GET /api/v1/accounts/relationships.
import { z } from 'zod';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as unfollowHandler } from '../../functions/accounts/unfollow';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById, updateAccount, type Account } from '../../lib/db/accounts';
import { followEdge } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import * as gsi1 from '../../lib/db/gsi1';
import { query } from '../../lib/db/table';
import { registerInlineWorker } from '../../lib/queue';
import { aBareAccount, aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// The real notify worker runs in-process; the messages are recorded too.
const sent: unknown[] = [];
registerInlineWorker('notify', async (event) => {
  for (const r of event.Records) sent.push(JSON.parse(r.body));
  return notifyWorker(event);
});
beforeEach(() => {
  sent.length = 0;
});

const anyItem = z.record(z.unknown());
const partition = async (pk: string) => (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': pk } }, anyItem)).items;
const gsiPartition = async (pk: string) =>
  (await query({ IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': pk } }, anyItem)).items;
const home = async (a: Account) => (await partition(keys.homePartition(a.id))).map((e) => String(e.statusId));
const notifications = async (a: Account) => partition(keys.notificationsPartition(a.id));

const followCall = (id: string, token?: string, form?: Record<string, string>) =>
  call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token, form });
const followJson = (id: string, token: string, json: unknown) =>
  call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token, json });
const unfollowCall = (id: string, token?: string) =>
  call(unfollowHandler, { method: 'POST', path: `/api/v1/accounts/${id}/unfollow`, pathParameters: { id }, token });
const relationships = (query: string | Record<string, string | string[]>, token?: string) =>
  call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query, token });

async function counters(a: Account) {
  const fresh = await accountById(a.id);
  return { followers: fresh?.followersCount, following: fresh?.followingCount, requests: fresh?.followRequestsCount };
}

const RELATIONSHIP_FIELDS = [
  'id', 'following', 'showing_reblogs', 'notifying', 'followed_by', 'blocking', 'blocked_by', 'muting',
  'muting_notifications', 'requested', 'domain_blocking', 'endorsed', 'note',
];

let alice: UserFixture;
let bob: UserFixture;
beforeEach(async () => {
  alice = await aUser();
  bob = await aUser();
});

describe('POST /api/v1/accounts/:id/follow', () => {
  it('follows an unlocked account: edge, both counters, notification, Relationship', async () => {
    const res = await followCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: bob.account.id, following: true, showing_reblogs: true, notifying: false, followed_by: false,
      blocking: false, blocked_by: false, muting: false, muting_notifications: false, requested: false,
      requested_by: false, domain_blocking: false, endorsed: false, note: '',
    });
    expect(await followEdge(alice.account.id, bob.account.id)).toMatchObject({ showReblogs: true, notify: false });
    expect((await gsiPartition(gsi1.followersPartition(bob.account.id))).map((e) => e.followerId)).toEqual([alice.account.id]);
    expect(await counters(alice.account)).toMatchObject({ following: 1, followers: 0 });
    expect(await counters(bob.account)).toMatchObject({ followers: 1, following: 0 });
    expect(sent).toEqual([{ type: 'follow', accountId: bob.account.id, fromAccountId: alice.account.id }]);
    expect((await notifications(bob.account)).map((n) => n.type)).toEqual(['follow']);
  });

  it('following again changes only the options given and never counts twice', async () => {
    await followCall(bob.account.id, alice.token, { reblogs: 'false', notify: 'true' });
    const again = await followCall(bob.account.id, alice.token);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ following: true, showing_reblogs: false, notifying: true });
    const third = await followJson(bob.account.id, alice.token, { reblogs: true });
    expect(third.body).toMatchObject({ following: true, showing_reblogs: true, notifying: true });
    expect(await followEdge(alice.account.id, bob.account.id)).toMatchObject({ showReblogs: true, notify: true });
    expect(await counters(alice.account)).toMatchObject({ following: 1 });
    expect(await counters(bob.account)).toMatchObject({ followers: 1 });
    expect(sent).toHaveLength(1);
    expect(await notifications(bob.account)).toHaveLength(1);
  });

  it('counts exactly under concurrent follows of the same account', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => followCall(bob.account.id, alice.token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.every((a) => a.body.following === true)).toBe(true);
    expect(await counters(alice.account)).toMatchObject({ following: 1 });
    expect(await counters(bob.account)).toMatchObject({ followers: 1 });
  });

  it('asks a locked account: a follow request, its counter, a follow_request notification, requested: true', async () => {
    await updateAccount(bob.account.id, { locked: true });
    const res = await followCall(bob.account.id, alice.token, { reblogs: 'false' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, following: false, requested: true, showing_reblogs: false });
    expect(await followEdge(alice.account.id, bob.account.id)).toBeUndefined();
    const received = await gsiPartition(gsi1.followRequestsPartition(bob.account.id));
    expect(received).toEqual([expect.objectContaining({ accountId: alice.account.id, targetAccountId: bob.account.id, showReblogs: false })]);
    expect(await counters(bob.account)).toMatchObject({ followers: 0, requests: 1 });
    expect(await counters(alice.account)).toMatchObject({ following: 0 });
    expect(sent).toEqual([{ type: 'follow_request', accountId: bob.account.id, fromAccountId: alice.account.id }]);

    // Asking again only changes the request's options.
    const again = await followCall(bob.account.id, alice.token, { notify: 'true' });
    expect(again.body).toMatchObject({ requested: true, showing_reblogs: false, notifying: true });
    expect(await counters(bob.account)).toMatchObject({ requests: 1 });
    expect(sent).toHaveLength(1);

    const rel = await relationships({ id: [bob.account.id] }, alice.token);
    expect(rel.body).toEqual([expect.objectContaining({ requested: true, following: false })]);
    const seenByBob = await relationships({ id: [alice.account.id] }, bob.token);
    expect(seenByBob.body).toEqual([expect.objectContaining({ requested_by: true, followed_by: false })]);
  });

  it("merges the followed account's recent statuses into home, leaving out direct ones and hidden reblogs", async () => {
    const carol = await aUser();
    const publicOne = await aPostedStatus(bob.account);
    const privateOne = await aPostedStatus(bob.account, { visibility: 'private' });
    const direct = await aPostedStatus(bob.account, { visibility: 'direct' });
    const original = await aPostedStatus(carol.account);
    const reblog = await aPostedReblog(bob.account, original);
    const res = await followCall(bob.account.id, alice.token, { reblogs: 'false' });
    expect(res.status).toBe(200);
    const entries = await home(alice.account);
    expect(entries).toEqual(expect.arrayContaining([publicOne.id, privateOne.id]));
    expect(entries).not.toContain(direct.id);
    expect(entries).not.toContain(reblog.id);

    const dave = await aUser();
    await followCall(bob.account.id, dave.token);
    expect(await home(dave.account)).toContain(reblog.id);
  });

  it('merges no more than the 20 latest statuses', async () => {
    for (let i = 0; i < 23; i++) await aPostedStatus(bob.account);
    await followCall(bob.account.id, alice.token);
    expect(await home(alice.account)).toHaveLength(20);
  });

  it.each([
    ['yourself', () => alice.account.id],
    ['an unknown account', () => '123456789012345'],
    ['a malformed id', () => 'abc'],
    ['an overlong id', () => '9'.repeat(40)],
  ])('answers 404 for %s and writes nothing', async (_name, id) => {
    const res = await followCall(id(), alice.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
    expect(await partition(keys.followingPartition(alice.account.id))).toEqual([]);
    expect(await counters(alice.account)).toMatchObject({ following: 0, followers: 0 });
    expect(sent).toEqual([]);
  });

  it('answers 404 for an account pending approval', async () => {
    const pending = await aUser({ approved: false });
    expect((await followCall(pending.account.id, alice.token)).status).toBe(404);
    expect(await counters(pending.account)).toMatchObject({ followers: 0 });
  });

  it.each([
    ['reblogs is not a boolean', { reblogs: 'perhaps' }],
    ['notify is a list', { notify: ['true'] }],
    ['reblogs is an object', { reblogs: { a: 1 } }],
  ])('answers 422 when %s and writes nothing', async (_name, json) => {
    const res = await followJson(bob.account.id, alice.token, json);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed/) });
    expect(await followEdge(alice.account.id, bob.account.id)).toBeUndefined();
    expect(await counters(bob.account)).toMatchObject({ followers: 0 });
  });

  it('answers 400-class errors for malformed JSON and writes nothing', async () => {
    const res = await call(followHandler, {
      method: 'POST', path: `/api/v1/accounts/${bob.account.id}/follow`, pathParameters: { id: bob.account.id }, token: alice.token,
      body: { data: '{"reblogs": tru', contentType: 'application/json' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await followEdge(alice.account.id, bob.account.id)).toBeUndefined();
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['an invalid token', async () => 'bogus', 401],
    ['a read-only token', async () => (await aUser({ scopes: ['read'] })).token, 403],
    ['a write:statuses token', async () => (await aUser({ scopes: ['write:statuses'] })).token, 403],
    ['an app token', async () => (await anAppToken(['write', 'follow'])).token, 422],
  ])('refuses %s and writes nothing', async (_name, token, status) => {
    const res = await followCall(bob.account.id, await token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await counters(bob.account)).toMatchObject({ followers: 0, requests: 0 });
  });

  it.each([
    ['write:follows', ['write:follows']],
    ['follow', ['follow']],
    ['write', ['write']],
  ])('accepts a token with %s', async (_name, scopes) => {
    const user = await aUser({ scopes });
    expect((await followCall(bob.account.id, user.token)).status).toBe(200);
  });
});

describe('POST /api/v1/accounts/:id/unfollow', () => {
  it("deletes the edge, decrements both counters once, and takes the account's entries out of home", async () => {
    const kept = await aPostedStatus(alice.account);
    await followCall(bob.account.id, alice.token);
    const later = await aPostedStatus(bob.account);
    const carol = await aUser();
    const reblog = await aPostedReblog(bob.account, await aPostedStatus(carol.account));
    // What the fan-out would have written meanwhile.
    const { batchWrite } = await import('../../lib/db/table');
    const { homeEntryRecord } = await import('../../lib/db/timelines');
    await batchWrite([homeEntryRecord(alice.account.id, later, false), homeEntryRecord(alice.account.id, reblog, false)]);
    expect(await home(alice.account)).toEqual(expect.arrayContaining([later.id, reblog.id, kept.id]));

    const res = await unfollowCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, following: false, requested: false, showing_reblogs: false });
    expect(await followEdge(alice.account.id, bob.account.id)).toBeUndefined();
    expect(await gsiPartition(gsi1.followersPartition(bob.account.id))).toEqual([]);
    expect(await counters(alice.account)).toMatchObject({ following: 0 });
    expect(await counters(bob.account)).toMatchObject({ followers: 0 });
    expect(await home(alice.account)).toEqual([kept.id]);

    const twice = await unfollowCall(bob.account.id, alice.token);
    expect(twice.status).toBe(200);
    expect(await counters(alice.account)).toMatchObject({ following: 0 });
    expect(await counters(bob.account)).toMatchObject({ followers: 0 });
  });

  it('counts exactly under concurrent unfollows', async () => {
    await followCall(bob.account.id, alice.token);
    const answers = await Promise.all([1, 2, 3].map(() => unfollowCall(bob.account.id, alice.token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await counters(alice.account)).toMatchObject({ following: 0 });
    expect(await counters(bob.account)).toMatchObject({ followers: 0 });
  });

  it('withdraws a pending follow request and its counter', async () => {
    await updateAccount(bob.account.id, { locked: true });
    await followCall(bob.account.id, alice.token);
    expect(await counters(bob.account)).toMatchObject({ requests: 1 });
    const res = await unfollowCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: false, requested: false });
    expect(await gsiPartition(gsi1.followRequestsPartition(bob.account.id))).toEqual([]);
    expect(await partition(keys.followRequest(alice.account.id, bob.account.id).PK)).toEqual([]);
    expect(await counters(bob.account)).toMatchObject({ requests: 0, followers: 0 });
    await unfollowCall(bob.account.id, alice.token);
    expect(await counters(bob.account)).toMatchObject({ requests: 0 });
  });

  it('answers the Relationship for an account that was never followed, changing nothing', async () => {
    await aFollow(bob.account, alice.account);
    const res = await unfollowCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: false, followed_by: true });
    expect(await counters(bob.account)).toMatchObject({ followers: 0, following: 0 });
  });

  it.each([
    ['an unknown account', '123456789012345'],
    ['a malformed id', 'x1'],
  ])('answers 404 for %s', async (_name, id) => {
    const res = await unfollowCall(id, alice.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['a read-only token', async () => (await aUser({ scopes: ['read'] })).token, 403],
    ['an app token', async () => (await anAppToken(['write', 'follow'])).token, 422],
  ])('refuses %s and keeps the follow', async (_name, token, status) => {
    await followCall(bob.account.id, alice.token);
    const res = await unfollowCall(bob.account.id, await token());
    expect(res.status).toBe(status);
    expect(await followEdge(alice.account.id, bob.account.id)).toBeDefined();
    expect(await counters(bob.account)).toMatchObject({ followers: 1 });
  });
});

describe('GET /api/v1/accounts/relationships', () => {
  it('answers every Relationship field, in the order asked, each account once', async () => {
    const carol = await aUser();
    await followCall(bob.account.id, alice.token, { notify: 'true' });
    await aFollow(carol.account, alice.account);
    const res = await relationships({ id: [carol.account.id, bob.account.id, carol.account.id] }, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const [withCarol, withBob] = res.body;
    for (const field of RELATIONSHIP_FIELDS) expect(withBob).toHaveProperty(field);
    expect(withBob).toMatchObject({ id: bob.account.id, following: true, showing_reblogs: true, notifying: true, followed_by: false, requested: false, note: '' });
    expect(withCarol).toMatchObject({ id: carol.account.id, following: false, followed_by: true, showing_reblogs: false, notifying: false });
  });

  it('accepts a single id= and leaves out unknown and malformed ids', async () => {
    const single = await relationships(`id=${bob.account.id}`, alice.token);
    expect(single.status).toBe(200);
    expect(single.body.map((r: { id: string }) => r.id)).toEqual([bob.account.id]);
    const mixed = await relationships({ id: ['123456789012345', 'abc', bob.account.id, ''] }, alice.token);
    expect(mixed.body.map((r: { id: string }) => r.id)).toEqual([bob.account.id]);
    expect((await relationships('', alice.token)).body).toEqual([]);
  });

  it('answers at most 40 relationships', async () => {
    const others = await Promise.all(Array.from({ length: 42 }, async () => ({ account: await aBareAccount() })));
    const res = await relationships({ id: others.map((o) => o.account.id) }, alice.token);
    expect(res.status).toBe(200);
    expect(res.body.map((r: { id: string }) => r.id)).toEqual(others.slice(0, 40).map((o) => o.account.id));
  });

  it.each([
    ['id is an object', 'id[a]=1'],
    ['an id is a list', 'id[0][]=1'],
  ])('answers 422 when %s', async (_name, query) => {
    const res = await relationships(query, alice.token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed/) });
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['a write-only token', async () => (await aUser({ scopes: ['write'] })).token, 403],
    ['an app token', async () => (await anAppToken(['read', 'follow'])).token, 422],
  ])('refuses %s', async (_name, token, status) => {
    const res = await relationships({ id: [bob.account.id] }, await token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it.each([['read:follows'], ['follow'], ['read']])('accepts a token with %s', async (scope) => {
    const user = await aUser({ scopes: [scope] });
    expect((await relationships({ id: [bob.account.id] }, user.token)).status).toBe(200);
  });
});
