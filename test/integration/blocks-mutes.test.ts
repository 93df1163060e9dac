// POST /api/v1/accounts/:id/block|unblock|mute|unmute, GET /api/v1/blocks and /api/v1/mutes,
// and what blocks and mutes hide: home, public and tag timelines, context, account statuses, notifications.
import { z } from 'zod';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as blocksHandler } from '../../functions/blocks/index';
import { handler as muteHandler } from '../../functions/accounts/mute';
import { handler as mutesHandler } from '../../functions/mutes/index';
import { handler as unblockHandler } from '../../functions/accounts/unblock';
import { handler as unmuteHandler } from '../../functions/accounts/unmute';
import { handler as accountStatusesHandler } from '../../functions/accounts/statuses';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as homeHandler } from '../../functions/timelines/home';
import { handler as publicHandler } from '../../functions/timelines/public';
import { handler as tagHandler } from '../../functions/timelines/tag';
import { accountById, type Account } from '../../lib/db/accounts';
import { putMute } from '../../lib/db/blocks';
import { createFollowRequest, followEdge } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { putReply, type Status } from '../../lib/db/statuses';
import { putItem, query, transact } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { fanOut } from '../../lib/timelines/fanout';
import { aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const anyItem = z.record(z.unknown());
const partition = async (pk: string) => (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': pk } }, anyItem)).items;
const homeEntries = async (a: Account) => (await partition(keys.homePartition(a.id))).map((e) => String(e.statusId));

const post = (handler: typeof blockHandler, action: string, id: string, token?: string, extra: { form?: Record<string, string>; json?: unknown } = {}) =>
  call(handler, { method: 'POST', path: `/api/v1/accounts/${id}/${action}`, pathParameters: { id }, token, ...extra });
const blockCall = (id: string, token?: string) => post(blockHandler, 'block', id, token);
const unblockCall = (id: string, token?: string) => post(unblockHandler, 'unblock', id, token);
const muteCall = (id: string, token?: string, extra: { form?: Record<string, string>; json?: unknown } = {}) => post(muteHandler, 'mute', id, token, extra);
const unmuteCall = (id: string, token?: string) => post(unmuteHandler, 'unmute', id, token);
const relationship = async (id: string, token: string) =>
  (await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id }, token })).body[0];
const ids = (body: unknown) => z.array(z.object({ id: z.string() })).parse(body).map((x) => x.id);

async function counters(a: Account) {
  const fresh = await accountById(a.id);
  return { followers: fresh?.followersCount, following: fresh?.followingCount, requests: fresh?.followRequestsCount };
}

const aRequest = (from: Account, to: Account) =>
  createFollowRequest({ id: newId(), accountId: from.id, targetAccountId: to.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });

/** A follow as the follow endpoint writes it: the edge and both counters. */
async function aCountedFollow(follower: Account, followed: Account) {
  await aFollow(follower, followed);
  await transact([
    { Update: { Key: keys.account(follower.id), UpdateExpression: 'ADD followingCount :one', ExpressionAttributeValues: { ':one': 1 } } },
    { Update: { Key: keys.account(followed.id), UpdateExpression: 'ADD followersCount :one', ExpressionAttributeValues: { ':one': 1 } } },
  ]);
}

/** A reply stored as posting stores it (status, home/public entries, reply index). */
async function aReply(author: Account, parent: Status) {
  const reply = await aPostedStatus(author, { inReplyToId: parent.id, inReplyToAccountId: parent.accountId, conversationId: parent.conversationId });
  await transact([putReply({ ...reply, inReplyToId: parent.id })]);
  return reply;
}

let alice: UserFixture;
let bob: UserFixture;
beforeEach(async () => {
  alice = await aUser();
  bob = await aUser();
});

describe('POST /api/v1/accounts/:id/block', () => {
  it('blocks: severs follows both ways with exact counters, answers the Relationship, and bob sees blocked_by', async () => {
    await aCountedFollow(alice.account, bob.account);
    await aCountedFollow(bob.account, alice.account);
    const res = await blockCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, blocking: true, blocked_by: false, following: false, followed_by: false, requested: false });
    expect(await followEdge(alice.account.id, bob.account.id)).toBeUndefined();
    expect(await followEdge(bob.account.id, alice.account.id)).toBeUndefined();
    expect(await counters(alice.account)).toEqual({ followers: 0, following: 0, requests: 0 });
    expect(await counters(bob.account)).toEqual({ followers: 0, following: 0, requests: 0 });
    expect(await relationship(alice.account.id, bob.token)).toMatchObject({ blocking: false, blocked_by: true, following: false });
    expect(await relationship(bob.account.id, alice.token)).toMatchObject({ blocking: true });
  });

  it('withdraws pending follow requests both ways and decrements the request counters', async () => {
    const carol = await aUser({ locked: true });
    expect(await aRequest(carol.account, alice.account)).toBe(true);
    expect(await aRequest(alice.account, carol.account)).toBe(true);
    expect(await counters(alice.account)).toMatchObject({ requests: 1 });
    const res = await blockCall(carol.account.id, alice.token);
    expect(res.body).toMatchObject({ blocking: true, requested: false, requested_by: false });
    expect(await counters(alice.account)).toMatchObject({ requests: 0 });
    expect(await counters(carol.account)).toMatchObject({ requests: 0 });
    expect(await partition(keys.followRequest(alice.account.id, carol.account.id).PK)).toEqual([]);
    expect(await partition(keys.followRequest(carol.account.id, alice.account.id).PK)).toEqual([]);
  });

  it('blocking twice changes nothing the second time (counters are not decremented again)', async () => {
    const carol = await aUser();
    await aCountedFollow(carol.account, bob.account);
    await aCountedFollow(alice.account, bob.account);
    await blockCall(bob.account.id, alice.token);
    const again = await blockCall(bob.account.id, alice.token);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ blocking: true });
    expect(await counters(bob.account)).toMatchObject({ followers: 1 });
    expect(await partition(keys.blockingPartition(alice.account.id))).toHaveLength(1);
  });

  it('unblock removes the block, lists follow, and a second unblock is harmless', async () => {
    await blockCall(bob.account.id, alice.token);
    const list = await call(blocksHandler, { path: '/api/v1/blocks', token: alice.token });
    expect(list.status).toBe(200);
    expect(ids(list.body)).toEqual([bob.account.id]);
    expect(list.headers.link).toContain('max_id=');
    const res = await unblockCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ blocking: false });
    expect((await unblockCall(bob.account.id, alice.token)).body).toMatchObject({ blocking: false });
    expect(ids((await call(blocksHandler, { path: '/api/v1/blocks', token: alice.token })).body)).toEqual([]);
    expect(await relationship(alice.account.id, bob.token)).toMatchObject({ blocked_by: false });
  });

  it('GET /api/v1/blocks pages with limit and max_id, newest account first', async () => {
    const [one, two, three] = [await aUser(), await aUser(), await aUser()];
    for (const o of [one, two, three]) await blockCall(o.account.id, alice.token);
    const first = await call(blocksHandler, { path: '/api/v1/blocks', query: { limit: '2' }, token: alice.token });
    expect(ids(first.body)).toEqual([three.account.id, two.account.id]);
    const next = await call(blocksHandler, { path: '/api/v1/blocks', query: { limit: '2', max_id: two.account.id }, token: alice.token });
    expect(ids(next.body)).toEqual([one.account.id]);
  });
});

describe('POST /api/v1/accounts/:id/mute', () => {
  it('mutes with notifications by default; GET /api/v1/mutes lists; unmute removes', async () => {
    const res = await muteCall(bob.account.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, muting: true, muting_notifications: true, blocking: false });
    expect(await relationship(bob.account.id, alice.token)).toMatchObject({ muting: true, muting_notifications: true });
    expect(await relationship(alice.account.id, bob.token)).toMatchObject({ muting: false });
    expect(ids((await call(mutesHandler, { path: '/api/v1/mutes', token: alice.token })).body)).toEqual([bob.account.id]);
    expect((await unmuteCall(bob.account.id, alice.token)).body).toMatchObject({ muting: false, muting_notifications: false });
    expect(ids((await call(mutesHandler, { path: '/api/v1/mutes', token: alice.token })).body)).toEqual([]);
  });

  it('notifications=false keeps notifications; muting again updates the flag and the duration', async () => {
    expect((await muteCall(bob.account.id, alice.token, { json: { notifications: false } })).body).toMatchObject({ muting: true, muting_notifications: false });
    expect((await muteCall(bob.account.id, alice.token, { form: { notifications: 'true', duration: '3600' } })).body).toMatchObject({ muting_notifications: true });
    const stored = await partition(keys.mutingPartition(alice.account.id));
    expect(stored).toHaveLength(1);
    expect(Number(stored[0]?.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 3500);
  });

  it('an expired mute no longer applies or lists', async () => {
    await putMute({ id: newId(), accountId: alice.account.id, targetAccountId: bob.account.id, notifications: true, expiresAt: Math.floor(Date.now() / 1000) - 10, createdAt: new Date().toISOString() });
    expect(await relationship(bob.account.id, alice.token)).toMatchObject({ muting: false });
    expect(ids((await call(mutesHandler, { path: '/api/v1/mutes', token: alice.token })).body)).toEqual([]);
  });
});

describe('bad input', () => {
  const cases: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
    ['block of an unknown id', () => blockCall('99999999999', alice.token), 404],
    ['block of a malformed id', () => blockCall('abc', alice.token), 404],
    ['block of oneself', () => blockCall(alice.account.id, alice.token), 404],
    ['block without a token', () => blockCall(bob.account.id), 401],
    ['mute of an unknown id', () => muteCall('99999999999', alice.token), 404],
    ['mute of oneself', () => muteCall(alice.account.id, alice.token), 404],
    ['mute with a negative duration', () => muteCall(bob.account.id, alice.token, { json: { duration: -5 } }), 422],
    ['mute with a non-numeric duration', () => muteCall(bob.account.id, alice.token, { form: { duration: 'soon' } }), 422],
    ['mute with a fractional duration', () => muteCall(bob.account.id, alice.token, { json: { duration: 1.5 } }), 422],
    ['mute with notifications not a boolean', () => muteCall(bob.account.id, alice.token, { json: { notifications: 'perhaps' } }), 422],
    ['mute with malformed JSON', () => call(muteHandler, { method: 'POST', path: `/api/v1/accounts/${bob.account.id}/mute`, pathParameters: { id: bob.account.id }, token: alice.token, body: { data: '{"notifications":', contentType: 'application/json' } }), 400],
    ['unblock of an unknown id', () => unblockCall('99999999999', alice.token), 404],
    ['unmute of an unknown id', () => unmuteCall('99999999999', alice.token), 404],
    ['blocks list with a malformed max_id', () => call(blocksHandler, { path: '/api/v1/blocks', query: { max_id: 'x' }, token: alice.token }), 422],
    ['mutes list with a negative limit', () => call(mutesHandler, { path: '/api/v1/mutes', query: { limit: '-1' }, token: alice.token }), 422],
    ['blocks list without a token', () => call(blocksHandler, { path: '/api/v1/blocks' }), 401],
  ];
  it.each(cases)('%s → 4xx {"error"} and nothing written', async (_name, run, status) => {
    const res = await run();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await partition(keys.blockingPartition(alice.account.id))).toEqual([]);
    expect(await partition(keys.mutingPartition(alice.account.id))).toEqual([]);
  });

  it.each([
    ['block with read only', blockHandler, 'block', ['read']],
    ['block with write:mutes', blockHandler, 'block', ['write:mutes']],
    ['mute with write:blocks', muteHandler, 'mute', ['write:blocks']],
  ] as const)('%s → 403 and nothing written', async (_name, handler, action, scopes) => {
    const weak = await aUser({ scopes: [...scopes] });
    const res = await post(handler, action, bob.account.id, weak.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await partition(keys.blockingPartition(weak.account.id))).toEqual([]);
    expect(await partition(keys.mutingPartition(weak.account.id))).toEqual([]);
  });

  it.each([
    ['block', blockHandler, ['follow']],
    ['block', blockHandler, ['write:blocks']],
    ['mute', muteHandler, ['write:mutes']],
  ] as const)('%s is allowed with %p', async (action, handler, scopes) => {
    const user = await aUser({ scopes: [...scopes] });
    expect((await post(handler, action, bob.account.id, user.token)).status).toBe(200);
  });

  it.each([
    ['/api/v1/blocks', blocksHandler, ['read:mutes']],
    ['/api/v1/mutes', mutesHandler, ['read:blocks']],
  ] as const)('GET %s with the wrong read scope → 403', async (path, handler, scopes) => {
    const user = await aUser({ scopes: [...scopes] });
    const res = await call(handler, { path, token: user.token });
    expect(res.status).toBe(403);
  });
});

describe('what blocks and mutes hide', () => {
  const home = async (u: UserFixture) => ids((await call(homeHandler, { path: '/api/v1/timelines/home', token: u.token })).body);

  it('home: a muted account’s statuses leave the home on read, and new ones are not fanned out to the muter', async () => {
    await aCountedFollow(alice.account, bob.account);
    const before = await aPostedStatus(bob.account);
    await fanOut(before.id);
    expect(await home(alice)).toEqual([before.id]);
    await muteCall(bob.account.id, alice.token);
    expect(await home(alice)).toEqual([]);
    const after = await aPostedStatus(bob.account);
    await fanOut(after.id);
    expect(await homeEntries(alice.account)).not.toContain(after.id);
    await unmuteCall(bob.account.id, alice.token);
    expect(await home(alice)).toEqual([before.id]);
  });

  it('home: reblogs of a blocked account’s statuses are hidden, and the block skips them at fan-out', async () => {
    const carol = await aUser();
    await aCountedFollow(alice.account, bob.account);
    const original = await aPostedStatus(carol.account);
    const early = await aPostedReblog(bob.account, original);
    await fanOut(early.id);
    expect(await home(alice)).toEqual([early.id]);
    await blockCall(carol.account.id, alice.token);
    expect(await home(alice)).toEqual([]);
    const other = await aPostedStatus(carol.account);
    const late = await aPostedReblog(bob.account, other);
    await fanOut(late.id);
    expect(await homeEntries(alice.account)).not.toContain(late.id);
  });

  it('home: blocking removes each side’s statuses from the other’s home', async () => {
    await aCountedFollow(alice.account, bob.account);
    await aCountedFollow(bob.account, alice.account);
    const fromBob = await aPostedStatus(bob.account);
    const fromAlice = await aPostedStatus(alice.account);
    await fanOut(fromBob.id);
    await fanOut(fromAlice.id);
    await blockCall(bob.account.id, alice.token);
    expect(await homeEntries(alice.account)).not.toContain(fromBob.id);
    expect(await homeEntries(bob.account)).not.toContain(fromAlice.id);
    expect(await home(bob)).toEqual([fromBob.id]);
  });

  it('public and tag timelines hide blocked (either way) and muted accounts from the viewer only', async () => {
    const carol = await aUser();
    const byBob = await aPostedStatus(bob.account, { tags: ['blocktest'] });
    const byCarol = await aPostedStatus(carol.account, { tags: ['blocktest'] });
    await blockCall(alice.account.id, bob.token); // bob blocks alice: alice is blocked_by bob
    await muteCall(carol.account.id, alice.token);
    const pub = async (token?: string) => ids((await call(publicHandler, { path: '/api/v1/timelines/public', token })).body);
    const tag = async (token?: string) =>
      ids((await call(tagHandler, { path: '/api/v1/timelines/tag/blocktest', pathParameters: { hashtag: 'blocktest' }, token })).body);
    expect(await pub(alice.token)).not.toContain(byBob.id);
    expect(await pub(alice.token)).not.toContain(byCarol.id);
    expect(await pub()).toEqual(expect.arrayContaining([byBob.id, byCarol.id]));
    expect(await tag(alice.token)).toEqual([]);
    expect(await tag()).toEqual([byCarol.id, byBob.id]);
  });

  it('context hides replies by blocked accounts; account statuses are empty across a block', async () => {
    const carol = await aUser();
    const root = await aPostedStatus(alice.account);
    const byBob = await aReply(bob.account, root);
    const byCarol = await aReply(carol.account, root);
    await blockCall(bob.account.id, alice.token);
    const context = await call(contextHandler, { path: `/api/v1/statuses/${root.id}/context`, pathParameters: { id: root.id }, token: alice.token });
    expect(context.status).toBe(200);
    expect(ids(context.body.descendants)).toEqual([byCarol.id]);
    const forCarol = await call(contextHandler, { path: `/api/v1/statuses/${root.id}/context`, pathParameters: { id: root.id }, token: carol.token });
    expect(ids(forCarol.body.descendants)).toEqual([byBob.id, byCarol.id]);
    const statusesOf = async (account: Account, token: string) =>
      ids((await call(accountStatusesHandler, { path: `/api/v1/accounts/${account.id}/statuses`, pathParameters: { id: account.id }, token })).body);
    expect(await statusesOf(bob.account, alice.token)).toEqual([]);
    expect(await statusesOf(alice.account, bob.token)).toEqual([]);
    expect(await statusesOf(bob.account, carol.token)).toEqual([byBob.id]);
  });

  it('notifications: none are created from blocked or notification-muted accounts; existing ones are hidden on read', async () => {
    const carol = await aUser();
    const dave = await aUser();
    const target = await aPostedStatus(alice.account);
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: bob.account.id, statusId: target.id })).toBe('created');
    await blockCall(bob.account.id, alice.token);
    await muteCall(carol.account.id, alice.token);
    await muteCall(dave.account.id, alice.token, { json: { notifications: false } });
    const list = async () =>
      z.array(z.object({ account: z.object({ id: z.string() }) })).parse((await call(notificationsHandler, { path: '/api/v1/notifications', token: alice.token })).body).map((n) => n.account.id);
    expect(await list()).toEqual([]);
    expect(await notify({ type: 'mention', accountId: alice.account.id, fromAccountId: bob.account.id, statusId: target.id })).toBe('hidden');
    expect(await notify({ type: 'follow', accountId: bob.account.id, fromAccountId: alice.account.id })).toBe('hidden');
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: carol.account.id, statusId: target.id })).toBe('hidden');
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: dave.account.id, statusId: target.id })).toBe('created');
    expect(await list()).toEqual([dave.account.id]);
    await unblockCall(bob.account.id, alice.token);
    expect(await list()).toEqual([dave.account.id, bob.account.id]);
  });
});

describe('bad input on every block and mute endpoint (audit)', () => {
  type Res = { status: number; body: unknown };
  const blocked = async (by: Account) => (await partition(keys.blockingPartition(by.id))).map((b) => String(b.targetAccountId));
  const muted = async (by: Account) => (await partition(keys.mutingPartition(by.id))).map((m) => String(m.targetAccountId));
  const listCall = (handler: typeof blocksHandler, path: string, token?: string, q: Record<string, string> = {}) => call(handler, { path, query: q, token });

  const actions: [string, (id: string, token?: string) => Promise<Res>][] = [
    ['block', (id, token) => blockCall(id, token)],
    ['unblock', (id, token) => unblockCall(id, token)],
    ['mute', (id, token) => muteCall(id, token)],
    ['unmute', (id, token) => unmuteCall(id, token)],
  ];

  it.each([
    ...actions.map(([name, run]): [string, (token?: string) => Promise<Res>] => [`POST /api/v1/accounts/:id/${name}`, (token) => run(bob.account.id, token)]),
    ['GET /api/v1/blocks', (token?: string) => listCall(blocksHandler, '/api/v1/blocks', token)],
    ['GET /api/v1/mutes', (token?: string) => listCall(mutesHandler, '/api/v1/mutes', token)],
  ])('%s refuses a missing (401), invalid (401) and app (422) token, writing nothing', async (_name, run) => {
    // Bob is blocked and muted by alice beforehand, so that an unblock or unmute getting through would show.
    await blockCall(bob.account.id, alice.token);
    await muteCall(bob.account.id, alice.token);
    const app = await anAppToken(['read', 'write', 'follow']);
    const answers = [await run(undefined), await run('not-a-token'), await run(app.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422]);
    for (const res of answers) expect(res.body).toEqual({ error: expect.any(String) });
    expect(await blocked(alice.account)).toEqual([bob.account.id]);
    expect(await muted(alice.account)).toEqual([bob.account.id]);
    expect(await blocked(bob.account)).toEqual([]);
    expect(await muted(bob.account)).toEqual([]);
  });

  it.each([
    ['unblock', ['write:mutes', 'read:blocks']],
    ['unblock', ['read']],
    ['unmute', ['write:blocks', 'read:mutes']],
    ['mute', ['write:blocks']],
    ['block', ['write:follows']],
  ])('%s with scopes %p → 403, the existing block or mute stays', async (action, scopes) => {
    const weak = await aUser({ scopes });
    // The weak user's block and mute of bob exist already (written through lib, as the endpoints would).
    const { block, mute } = await import('../../lib/graph/blocks');
    await block(weak.account, bob.account.id);
    await mute(weak.account, bob.account.id, { notifications: true, duration: 0 });
    const run = actions.find(([name]) => name === action)![1];
    const res = await run(bob.account.id, weak.token);
    expect([res.status, res.body]).toEqual([403, { error: expect.any(String) }]);
    expect(await blocked(weak.account)).toEqual([bob.account.id]);
    expect(await muted(weak.account)).toEqual([bob.account.id]);
  });

  it.each([
    ['/api/v1/blocks', 'blocks', ['write:blocks']],
    ['/api/v1/blocks', 'blocks', ['write']],
    ['/api/v1/mutes', 'mutes', ['write:mutes']],
    ['/api/v1/mutes', 'mutes', ['read:follows']],
  ] as const)('GET %s with %s-less scopes %p → 403', async (path, _what, scopes) => {
    const weak = await aUser({ scopes: [...scopes] });
    const res = await listCall(path === '/api/v1/blocks' ? blocksHandler : mutesHandler, path, weak.token);
    expect([res.status, res.body]).toEqual([403, { error: expect.any(String) }]);
  });

  it.each([
    ['unblock', ['write:blocks']],
    ['unmute', ['write:mutes']],
    ['unmute', ['follow']],
  ])('%s is allowed with %p', async (action, scopes) => {
    const user = await aUser({ scopes });
    const run = actions.find(([name]) => name === action)![1];
    expect((await run(bob.account.id, user.token)).status).toBe(200);
  });

  it.each(actions)('%s answers 404 for malformed, oversized, unknown and own ids, writing nothing', async (_name, run) => {
    for (const id of ['abc', '1.5', '-1', ' ', '123456789012345678901', '99999999999999999999', alice.account.id]) {
      const res = await run(id, alice.token);
      expect([id, res.status, res.body]).toEqual([id, 404, { error: 'Record not found' }]);
    }
    expect(await blocked(alice.account)).toEqual([]);
    expect(await muted(alice.account)).toEqual([]);
  });

  it("answers 404 for an account whose login is pending approval, and unblock/unmute touch only the caller's own block or mute", async () => {
    const pending = await aUser({ approved: false });
    for (const [, run] of actions) expect((await run(pending.account.id, alice.token)).status).toBe(404);
    const carol = await aUser();
    await blockCall(bob.account.id, carol.token);
    await muteCall(bob.account.id, carol.token);
    expect((await unblockCall(bob.account.id, alice.token)).body).toMatchObject({ blocking: false });
    expect((await unmuteCall(bob.account.id, alice.token)).body).toMatchObject({ muting: false });
    expect(await blocked(carol.account)).toEqual([bob.account.id]);
    expect(await muted(carol.account)).toEqual([bob.account.id]);
    expect(await blocked(alice.account)).toEqual([]);
  });

  it.each([
    ['a duration beyond 100 years', { json: { duration: 100 * 365 * 24 * 3600 + 1 } }],
    ['an overflowing duration', { form: { duration: '1e400' } }],
    ['a duration that is a list', { json: { duration: [60] } }],
    ['notifications that is a list', { json: { notifications: [true] } }],
    ['notifications that is an object', { json: { notifications: { a: 1 } } }],
  ])('mute with %s → 422 and nothing written', async (_name, extra) => {
    const res = await muteCall(bob.account.id, alice.token, extra as { form?: Record<string, string>; json?: unknown });
    expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    expect(await muted(alice.account)).toEqual([]);
  });

  it.each([
    ['a negative limit', { limit: '-1' }],
    ['a fractional limit', { limit: '2.5' }],
    ['an overflowing limit', { limit: '1e400' }],
    ['a malformed max_id', { max_id: '12abc' }],
    ['a malformed since_id', { since_id: 'x' }],
    ['an oversized min_id', { min_id: '123456789012345678901' }],
  ])('GET /api/v1/blocks and /api/v1/mutes with %s → 422', async (_name, q) => {
    for (const res of [await listCall(blocksHandler, '/api/v1/blocks', alice.token, q), await listCall(mutesHandler, '/api/v1/mutes', alice.token, q)]) {
      expect([res.status, res.body]).toEqual([422, { error: expect.stringContaining('Validation failed') }]);
    }
  });

  it('an inverted id range answers an empty page, not an error', async () => {
    await blockCall(bob.account.id, alice.token);
    await muteCall(bob.account.id, alice.token);
    const q = { max_id: '1', min_id: '99999999999999999999' };
    for (const res of [await listCall(blocksHandler, '/api/v1/blocks', alice.token, q), await listCall(mutesHandler, '/api/v1/mutes', alice.token, q)]) {
      expect([res.status, res.body]).toEqual([200, []]);
    }
  });
});
