import { z } from 'zod';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as unreblog } from '../../functions/statuses/unreblog';
import { handler as rebloggedBy } from '../../functions/statuses/reblogged_by';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { accountById } from '../../lib/db/accounts';
import { followRecord } from '../../lib/db/follows';
import { reblogFlagOf } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { notificationsPage } from '../../lib/db/notifications';
import { statusById } from '../../lib/db/statuses';
import { getItem, putItem, query } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { registerInlineWorker, type QueueName } from '../../lib/queue';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// Both queues run their real workers in-process; the messages are recorded too.
const sent: { queue: QueueName; body: unknown }[] = [];
for (const [queue, worker] of [['fanout', fanoutWorker], ['notify', notifyWorker]] as const) {
  registerInlineWorker(queue, async (event) => {
    for (const r of event.Records) sent.push({ queue, body: JSON.parse(r.body) });
    return worker(event);
  });
}

const post = (handler: typeof reblog, verb: string, id: string, token?: string, form?: Record<string, string>) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token, form });
const boost = (id: string, token?: string, form?: Record<string, string>) => post(reblog, 'reblog', id, token, form);
const unboost = (id: string, token?: string) => post(unreblog, 'unreblog', id, token);

const anyItem = z.record(z.unknown());
const listOf = async (partition: string) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': partition } }, anyItem)).items;
const follow = (follower: UserFixture, followed: UserFixture, showReblogs = true) =>
  putItem(followRecord({ id: newId(), followerId: follower.account.id, followedId: followed.account.id, showReblogs, notify: false, createdAt: new Date().toISOString() }));

let author: UserFixture;
beforeAll(async () => {
  author = await aUser();
});
beforeEach(() => {
  sent.length = 0;
});

describe('POST /api/v1/statuses/:id/reblog', () => {
  it('creates one reblog with its home entries, counters and notification, however often it is called', async () => {
    const booster = await aUser();
    const follower = await aUser();
    await follow(follower, booster);
    const original = await aStoredStatus(author.account);

    const res = await boost(original.id, booster.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ visibility: 'public', account: { id: booster.account.id }, reblog: { id: original.id, reblogged: true, reblogs_count: 1 } });
    // As Mastodon's answer: the reblog carries its original's flags at the top too (apps read either).
    expect(res.body).toMatchObject({ reblogged: true, favourited: false, bookmarked: false, muted: false });
    const reblogId: string = res.body.id;
    expect(reblogId).not.toBe(original.id);

    const again = await boost(original.id, booster.token);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(reblogId);

    expect((await statusById(original.id))?.reblogsCount).toBe(1);
    expect(await statusById(reblogId)).toMatchObject({ reblogOfId: original.id, accountId: booster.account.id, conversationId: original.conversationId });
    expect((await accountById(booster.account.id))?.statusesCount).toBe(1);
    expect(await listOf(keys.statusReblogsPartition(original.id))).toHaveLength(1);
    expect(await getItem(keys.homeEntry(booster.account.id, reblogId), anyItem)).toBeDefined();
    expect(await getItem(keys.homeEntry(follower.account.id, reblogId), anyItem)).toBeDefined();

    expect(sent).toEqual([
      { queue: 'fanout', body: { type: 'create', statusId: reblogId, owed: true } },
      { queue: 'notify', body: { type: 'reblog', accountId: author.account.id, fromAccountId: booster.account.id, statusId: original.id } },
    ]);
    const notes = await notificationsPage(author.account.id, { limit: 40 }, { types: ['reblog'] });
    expect(notes).toEqual([expect.objectContaining({ fromAccountId: booster.account.id })]);
  });

  it('reblogging a reblog reblogs the original', async () => {
    const first = await aUser();
    const second = await aUser();
    const original = await aStoredStatus(author.account);
    const r1 = await boost(original.id, first.token);
    const r2 = await boost(r1.body.id, second.token);
    expect(r2.status).toBe(200);
    expect(r2.body.reblog.id).toBe(original.id);
    expect((await statusById(original.id))?.reblogsCount).toBe(2);
    expect((await statusById(r1.body.id))?.reblogsCount).toBe(0);
  });

  it('takes the requested visibility, and a private original keeps its own', async () => {
    const booster = await aUser();
    const original = await aStoredStatus(author.account);
    expect((await boost(original.id, booster.token, { visibility: 'unlisted' })).body.visibility).toBe('unlisted');
    const own = await aStoredStatus(author.account, { visibility: 'private' });
    const res = await boost(own.id, author.token, { visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('private');
    // Notifying yourself never happens.
    expect(sent.filter((m) => m.queue === 'notify' && (m.body as { fromAccountId: string }).fromAccountId === author.account.id)).toEqual([]);
  });

  it("refuses someone else's private status with 403 and a direct message with 403 or 404", async () => {
    const follower = await aUser();
    await follow(follower, author);
    const priv = await aStoredStatus(author.account, { visibility: 'private' });
    const res = await boost(priv.id, follower.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is not allowed' });
    const dm = await aStoredStatus(author.account, {
      visibility: 'direct',
      mentions: [{ id: follower.account.id, username: follower.account.username, acct: follower.account.username, url: '' }],
    });
    expect((await boost(dm.id, follower.token)).status).toBe(403);
    expect((await boost(dm.id, author.token)).status).toBe(403);
    const stranger = await aUser();
    expect((await boost(dm.id, stranger.token)).status).toBe(404);
    for (const s of [priv, dm]) {
      expect((await statusById(s.id))?.reblogsCount).toBe(0);
      expect(await listOf(keys.statusReblogsPartition(s.id))).toEqual([]);
    }
    expect((await accountById(follower.account.id))?.statusesCount).toBe(0);
    expect(sent).toEqual([]);
  });

  it.each([
    ['an unknown id', () => newId(), {}, 404],
    ['a malformed id', () => 'x1', {}, 404],
    ['a direct visibility', () => 'STATUS', { visibility: 'direct' }, 422],
    ['an unknown visibility', () => 'STATUS', { visibility: 'everyone' }, 422],
  ])('answers %s with an error and writes nothing', async (_n, id, form, status) => {
    const booster = await aUser();
    const original = await aStoredStatus(author.account);
    const res = await boost(id() === 'STATUS' ? original.id : id(), booster.token, form);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect((await statusById(original.id))?.reblogsCount).toBe(0);
    expect(await reblogFlagOf(booster.account.id, original.id)).toBeUndefined();
    expect(await listOf(keys.homePartition(booster.account.id))).toEqual([]);
    expect((await accountById(booster.account.id))?.statusesCount).toBe(0);
  });

  it.each([
    ['no token', undefined, 401],
    ['a read token', 'read', 403],
    ['a write:favourites token', 'write:favourites', 403],
  ])('refuses %s', async (_n, scope, status) => {
    const token = scope ? (await aUser({ scopes: [scope] })).token : undefined;
    const original = await aStoredStatus(author.account);
    const res = await boost(original.id, token);
    expect(res.status).toBe(status);
    expect((await statusById(original.id))?.reblogsCount).toBe(0);
  });

  it('accepts JSON bodies', async () => {
    const booster = await aUser();
    const original = await aStoredStatus(author.account);
    const res = await call(reblog, { method: 'POST', path: `/api/v1/statuses/${original.id}/reblog`, pathParameters: { id: original.id }, token: booster.token, json: { visibility: 'private' } });
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('private');
  });
});

describe('POST /api/v1/statuses/:id/unreblog', () => {
  it('removes the reblog, its entries and counters, fans out the removal and answers the original', async () => {
    const booster = await aUser();
    const follower = await aUser();
    await follow(follower, booster);
    const original = await aStoredStatus(author.account);
    const reblogId: string = (await boost(original.id, booster.token)).body.id;
    sent.length = 0;

    const res = await unboost(original.id, booster.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: original.id, reblogged: false, reblogs_count: 0, reblog: null });
    expect(await statusById(reblogId)).toBeUndefined();
    expect(await reblogFlagOf(booster.account.id, original.id)).toBeUndefined();
    expect(await listOf(keys.statusReblogsPartition(original.id))).toEqual([]);
    expect(await getItem(keys.homeEntry(booster.account.id, reblogId), anyItem)).toBeUndefined();
    expect(await getItem(keys.homeEntry(follower.account.id, reblogId), anyItem)).toBeUndefined();
    expect((await accountById(booster.account.id))?.statusesCount).toBe(0);
    expect(sent).toEqual([{ queue: 'fanout', body: { type: 'delete', statusId: reblogId, accountId: booster.account.id, mentionIds: [] } }]);

    const again = await unboost(original.id, booster.token);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ reblogged: false, reblogs_count: 0 });
    expect((await statusById(original.id))?.reblogsCount).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it("leaves other people's reblogs alone", async () => {
    const a = await aUser();
    const b = await aUser();
    const original = await aStoredStatus(author.account);
    await boost(original.id, a.token);
    const res = await unboost(original.id, b.token);
    expect(res.body).toMatchObject({ reblogged: false, reblogs_count: 1 });
    expect(await reblogFlagOf(a.account.id, original.id)).toBeDefined();
  });

  it.each([
    ['an unknown id', () => newId(), 404],
    ['a malformed id', () => '1e9', 404],
  ])('answers %s with 404', async (_n, id, status) => {
    const res = await unboost(id(), author.token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: 'Record not found' });
  });
});

describe('GET /api/v1/statuses/:id/reblogged_by', () => {
  const list = (id: string, query: Record<string, string> = {}) =>
    call(rebloggedBy, { path: `/api/v1/statuses/${id}/reblogged_by`, pathParameters: { id }, query });

  it('lists public and unlisted rebloggers, newest first, with Link paging', async () => {
    const original = await aStoredStatus(author.account);
    const boosters: UserFixture[] = [];
    for (let i = 0; i < 3; i++) {
      const u = await aUser();
      boosters.push(u);
      await boost(original.id, u.token, { visibility: i === 1 ? 'unlisted' : 'public' });
    }
    const res = await list(original.id);
    expect(res.status).toBe(200);
    expect(res.body.map((a: { id: string }) => a.id)).toEqual(boosters.map((b) => b.account.id).reverse());
    const page = await list(original.id, { limit: '2' });
    expect(page.body).toHaveLength(2);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(page.headers.link ?? '')![1]!);
    const rest = await list(original.id, Object.fromEntries(next.searchParams));
    expect(rest.body.map((a: { id: string }) => a.id)).toEqual([boosters[0]!.account.id]);
  });

  it('leaves out private reblogs', async () => {
    const own = await aStoredStatus(author.account, { visibility: 'private' });
    await boost(own.id, author.token);
    expect((await list(own.id)).status).toBe(404);
    const res = await call(rebloggedBy, { path: `/api/v1/statuses/${own.id}/reblogged_by`, pathParameters: { id: own.id }, token: author.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it.each([
    ['an unknown id', () => newId(), {}, 404],
    ['a malformed since_id', () => 'STATUS', { since_id: '-3' }, 422],
    ['a fractional limit', () => 'STATUS', { limit: '1.5' }, 422],
  ])('answers %s with an error', async (_n, id, query, status) => {
    const original = await aStoredStatus(author.account);
    const res = await list(id() === 'STATUS' ? original.id : id(), query);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});
