import { handler as favouriteHandler } from '../../functions/statuses/favourite';
import { handler as clear } from '../../functions/notifications/clear';
import { handler as dismiss } from '../../functions/notifications/dismiss';
import { handler as index } from '../../functions/notifications/index';
import { handler as show } from '../../functions/notifications/show';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import * as keys from '../../lib/db/keys';
import { notificationItem, type NotificationType } from '../../lib/db/notifications';
import { deleteItem, getItem, queryAll } from '../../lib/db/table';
import { registerInlineWorker, sqsEvent } from '../../lib/queue';
import { z } from 'zod';
import { aStoredStatus, anAppToken, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

registerInlineWorker('notify', notifyWorker);

type Message = { type: NotificationType; accountId: string; fromAccountId: string; statusId?: string };

/** Delivers messages to the notify worker as SQS would. */
async function deliver(...messages: unknown[]) {
  const res = await notifyWorker(sqsEvent('notify', messages));
  expect(res.batchItemFailures).toEqual([]);
}

const stored = (account: Account) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsPartition(account.id) } }, notificationItem);

const list = (token: string, query: Record<string, string | string[]> | string = {}) =>
  call(index, { path: '/api/v1/notifications', query, token });

const favouriteOf = (from: Account, status: { id: string; accountId: string }): Message => ({
  type: 'favourite',
  accountId: status.accountId,
  fromAccountId: from.id,
  statusId: status.id,
});

describe('notify worker', () => {
  let alice: UserFixture;
  let bob: UserFixture;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([aUser(), aUser()]);
  });

  it('writes a favourite notification once, however often the message arrives', async () => {
    const status = await aStoredStatus(alice.account);
    await deliver(favouriteOf(bob.account, status));
    await deliver(favouriteOf(bob.account, status), favouriteOf(bob.account, status));
    const mine = (await stored(alice.account)).filter((n) => n.statusId === status.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ type: 'favourite', accountId: alice.account.id, fromAccountId: bob.account.id, statusId: status.id });
  });

  it('never notifies an account of its own action, nor about a status that is gone, nor an unknown recipient', async () => {
    const before = (await stored(alice.account)).length;
    const own = await aStoredStatus(alice.account);
    await deliver(favouriteOf(alice.account, own));
    await deliver({ type: 'mention', accountId: alice.account.id, fromAccountId: bob.account.id, statusId: '1234567890' });
    await deliver({ type: 'mention', accountId: alice.account.id, fromAccountId: bob.account.id });
    await deliver({ type: 'follow', accountId: '424242', fromAccountId: bob.account.id });
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: '424242' });
    expect(await stored(alice.account)).toHaveLength(before);
  });

  it('drops malformed messages without writing anything', async () => {
    const before = (await stored(alice.account)).length;
    await deliver(
      { type: 'boost', accountId: alice.account.id, fromAccountId: bob.account.id },
      { type: 'follow', accountId: alice.account.id },
      { type: 'follow', accountId: 'alice', fromAccountId: bob.account.id },
      'not an object',
    );
    expect(await stored(alice.account)).toHaveLength(before);
  });

  it('is fed by the favourite endpoint', async () => {
    const status = await aStoredStatus(alice.account, { text: 'fave me' });
    const res = await call(favouriteHandler, { method: 'POST', path: `/api/v1/statuses/${status.id}/favourite`, pathParameters: { id: status.id }, token: bob.token });
    expect(res.status).toBe(200);
    const page = await list(alice.token, { types: ['favourite'] });
    expect(page.body[0]).toMatchObject({ type: 'favourite', account: { id: bob.account.id }, status: { id: status.id, favourites_count: 1 } });
  });
});

describe('GET /api/v1/notifications', () => {
  let alice: UserFixture;
  let bob: UserFixture;
  let carol: UserFixture;
  const ids: string[] = [];
  const id = (i: number): string => {
    const found = ids[i];
    if (found === undefined) throw new Error(`no notification #${i}`);
    return found;
  };
  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([aUser(), aUser(), aUser()]);
    // 20 favourites by bob, then a follow and a mention by carol: 22 notifications, oldest first.
    for (let i = 0; i < 20; i++) {
      const status = await aStoredStatus(alice.account, { text: `post ${i}` });
      await deliver(favouriteOf(bob.account, status));
    }
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: carol.account.id });
    const mention = await aStoredStatus(carol.account, { text: '@alice hi', visibility: 'direct', mentions: [{ id: alice.account.id, username: alice.account.username, acct: alice.account.username, url: 'https://social.example/@x' }] });
    await deliver({ type: 'mention', accountId: alice.account.id, fromAccountId: carol.account.id, statusId: mention.id });
    ids.push(...(await stored(alice.account)).map((n) => n.id).reverse());
    expect(ids).toHaveLength(22);
  });

  it('answers the newest 15 by default, as Mastodon 3.x entities, with Link paging', async () => {
    const res = await list(alice.token);
    expect(res.status).toBe(200);
    expect(res.body.map((n: { id: string }) => n.id)).toEqual(ids.slice(0, 15));
    const [mention, follow, fav] = res.body;
    expect(mention).toMatchObject({ type: 'mention', account: { id: carol.account.id }, status: { visibility: 'direct', content: '<p>hello</p>' } });
    expect(typeof mention.created_at).toBe('string');
    expect(follow).toEqual({ id: id(1), type: 'follow', group_key: expect.stringMatching(/^follow-\d+$/), created_at: expect.any(String), account: expect.objectContaining({ id: carol.account.id, acct: carol.account.username }) });
    expect(fav).toMatchObject({ type: 'favourite', account: { id: bob.account.id }, status: { account: { id: alice.account.id } } });
    expect(res.headers.link).toBe(
      `<https://social.example/api/v1/notifications?max_id=${id(14)}>; rel="next", <https://social.example/api/v1/notifications?min_id=${id(0)}>; rel="prev"`,
    );
  });

  it('walks the whole list with max_id and back with min_id, with no gap and no duplicate', async () => {
    const seen: string[] = [];
    let max: string | undefined;
    for (;;) {
      const res = await list(alice.token, { limit: '5', ...(max ? { max_id: max } : {}) });
      if (res.body.length === 0) break;
      seen.push(...res.body.map((n: { id: string }) => n.id));
      expect(res.headers.link).toContain('limit=5');
      max = res.body.at(-1).id;
    }
    expect(seen).toEqual(ids);

    const back: string[] = [];
    let min = ids.at(-1)!;
    back.push(min);
    for (;;) {
      const res = await list(alice.token, { limit: '5', min_id: min });
      if (res.body.length === 0) break;
      back.unshift(...res.body.map((n: { id: string }) => n.id));
      min = res.body[0].id;
    }
    expect(back).toEqual(ids);
  });

  it('bounds pages with since_id, and with max_id and min_id together', async () => {
    const since = await list(alice.token, { since_id: id(3) });
    expect(since.body.map((n: { id: string }) => n.id)).toEqual(ids.slice(0, 3));
    const newerThanOldest = await list(alice.token, { min_id: id(10), limit: '2' });
    expect(newerThanOldest.body.map((n: { id: string }) => n.id)).toEqual([id(8), id(9)]);
    const between = await list(alice.token, { max_id: id(2), min_id: id(6) });
    expect(between.body.map((n: { id: string }) => n.id)).toEqual(ids.slice(3, 6));
    const none = await list(alice.token, { max_id: id(5), since_id: id(6) });
    expect(none.body).toEqual([]);
    expect(none.headers.link).toBeUndefined();
  });

  it('caps limit at 30 and raises 0 to 1', async () => {
    const dave = await aUser();
    const statuses = await Promise.all(Array.from({ length: 32 }, () => aStoredStatus(dave.account)));
    await deliver(...statuses.map((s) => favouriteOf(bob.account, s)));
    expect((await list(dave.token, { limit: '100' })).body).toHaveLength(30);
    expect((await list(dave.token, { limit: '0' })).body).toHaveLength(1);
    expect((await list(dave.token, { limit: '-5' })).status).toBe(422);
  });

  it('filters by types[], exclude_types[] and account_id, keeping full pages', async () => {
    const follows = await list(alice.token, { types: ['follow', 'mention'] });
    expect(follows.body.map((n: { type: string }) => n.type)).toEqual(['mention', 'follow']);
    expect(follows.headers.link).toContain('types%5B%5D=follow&types%5B%5D=mention');
    const single = await list(alice.token, 'types=follow');
    expect(single.body.map((n: { type: string }) => n.type)).toEqual(['follow']);
    const noFaves = await list(alice.token, { exclude_types: ['favourite'] });
    expect(noFaves.body.map((n: { type: string }) => n.type)).toEqual(['mention', 'follow']);
    const fromBob = await list(alice.token, { account_id: bob.account.id, limit: '3' });
    expect(fromBob.body.map((n: { id: string }) => n.id)).toEqual(ids.slice(2, 5));
    const favesAfterFilteringMany = await list(alice.token, { exclude_types: ['follow', 'mention'], limit: '4', max_id: id(3) });
    expect(favesAfterFilteringMany.body.map((n: { id: string }) => n.id)).toEqual(ids.slice(4, 8));
    // Unknown type names are ignored, as Mastodon does: asking only for them finds nothing.
    expect((await list(alice.token, { types: ['admin.sign_up'] })).body).toEqual([]);
    expect((await list(alice.token, { exclude_types: ['update'] })).body).toHaveLength(15);
    expect((await list(alice.token, { account_id: '99999' })).body).toEqual([]);
  });

  it('shows another account nothing of alice', async () => {
    const res = await list(carol.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it.each([
    ['a non-numeric limit', { limit: 'ten' }, /limit/],
    ['a non-id max_id', { max_id: 'abc' }, /max_id/],
    ['a non-id since_id', { since_id: '-1' }, /since_id/],
    ['a non-id min_id', { min_id: '1e5' }, /min_id/],
    ['a non-id account_id', { account_id: 'bob' }, /account_id/],
    ['types as an object', 'types[a][b]=1', /types/],
    ['an oversized type name', { types: ['x'.repeat(65)] }, /types/],
    ['too many types', { exclude_types: Array.from({ length: 64 }, (_, i) => `t${i}`) }, /exclude_types/],
  ])('rejects %s with 422', async (_name, query, message) => {
    const res = await list(alice.token, query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
  });
});

describe('notifications about statuses that are gone or hidden', () => {
  it('drops notifications whose status was deleted or can no longer be seen, but pages past them', async () => {
    const [alice, bob] = await Promise.all([aUser(), aUser()]);
    const kept = await aStoredStatus(alice.account);
    const deleted = await aStoredStatus(alice.account);
    // A poll notification about bob's followers-only status: alice does not follow bob.
    const hidden = await aStoredStatus(bob.account, { visibility: 'private' });
    await deliver(favouriteOf(bob.account, kept), favouriteOf(bob.account, deleted));
    await deliver({ type: 'poll', accountId: alice.account.id, fromAccountId: bob.account.id, statusId: hidden.id });
    await deleteItem(keys.status(deleted.id), z.unknown());
    const all = await stored(alice.account);
    expect(all).toHaveLength(3);

    const res = await list(alice.token);
    expect(res.body.map((n: { status: { id: string } }) => n.status.id)).toEqual([kept.id]);
    const page = await list(alice.token, { limit: '2' });
    expect(page.body).toEqual([]);
    expect(page.headers.link).toContain(`max_id=${all[1]!.id}`);

    const hiddenOne = all.find((n) => n.statusId === hidden.id)!;
    const one = await call(show, { path: `/api/v1/notifications/${hiddenOne.id}`, pathParameters: { id: hiddenOne.id }, token: alice.token });
    expect(one.status).toBe(404);
  });
});

describe('GET /api/v1/notifications/:id', () => {
  it('answers one of the account’s own notifications, and 404 for anyone else’s or an unknown id', async () => {
    const [alice, bob] = await Promise.all([aUser(), aUser()]);
    await deliver({ type: 'follow_request', accountId: alice.account.id, fromAccountId: bob.account.id });
    const n = (await stored(alice.account))[0]!;
    const get = (id: string, token: string) => call(show, { path: `/api/v1/notifications/${id}`, pathParameters: { id }, token });
    const mine = await get(n.id, alice.token);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ id: n.id, type: 'follow_request', group_key: `ungrouped-${n.id}`, created_at: n.createdAt, account: expect.objectContaining({ id: bob.account.id }) });
    const cases: [string, string][] = [[n.id, bob.token], ['123', alice.token], ['abc', alice.token], ['1'.repeat(25), alice.token]];
    for (const [other, token] of cases) {
      const res = await get(other, token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });
});

describe('POST /api/v1/notifications/:id/dismiss', () => {
  it('removes one own notification; a later identical action notifies again', async () => {
    const [alice, bob] = await Promise.all([aUser(), aUser()]);
    const status = await aStoredStatus(alice.account);
    await deliver(favouriteOf(bob.account, status), { type: 'follow', accountId: alice.account.id, fromAccountId: bob.account.id });
    const [follow, fav] = (await stored(alice.account)).reverse();
    if (!follow || !fav) throw new Error('expected two notifications');
    const res = await call(dismiss, { method: 'POST', path: `/api/v1/notifications/${fav.id}/dismiss`, pathParameters: { id: fav.id }, token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await stored(alice.account)).map((n) => n.id)).toEqual([follow.id]);
    expect(await getItem(keys.notificationOnce(alice.account.id, 'favourite', bob.account.id, status.id), z.unknown())).toBeUndefined();

    await deliver(favouriteOf(bob.account, status));
    expect(await stored(alice.account)).toHaveLength(2);
  });

  it.each([
    ['someone else’s notification', 'other'],
    ['an unknown id', '777'],
    ['a malformed id', 'x y'],
  ])('answers 404 for %s and removes nothing', async (_name, which) => {
    const [alice, bob] = await Promise.all([aUser(), aUser()]);
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: bob.account.id });
    const n = (await stored(alice.account))[0]!;
    const target = which === 'other' ? n.id : which;
    const res = await call(dismiss, { method: 'POST', path: `/api/v1/notifications/${target}/dismiss`, pathParameters: { id: target }, token: bob.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
    expect(await stored(alice.account)).toHaveLength(1);
  });
});

describe('POST /api/v1/notifications/clear', () => {
  it('removes every notification of the account (across batch chunks) and nobody else’s', async () => {
    const [alice, bob] = await Promise.all([aUser(), aUser()]);
    const statuses = await Promise.all(Array.from({ length: 30 }, () => aStoredStatus(alice.account)));
    await deliver(...statuses.map((s) => favouriteOf(bob.account, s)));
    await deliver({ type: 'follow', accountId: bob.account.id, fromAccountId: alice.account.id });
    expect(await stored(alice.account)).toHaveLength(30);

    const res = await call(clear, { method: 'POST', path: '/api/v1/notifications/clear', token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await stored(alice.account)).toEqual([]);
    expect(await stored(bob.account)).toHaveLength(1);
    expect(await getItem(keys.notificationOnce(alice.account.id, 'favourite', bob.account.id, statuses[0]!.id), z.unknown())).toBeUndefined();
    expect((await list(alice.token)).body).toEqual([]);
  });
});

describe('authorization', () => {
  let alice: UserFixture;
  beforeAll(async () => {
    alice = await aUser();
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: (await aUser()).account.id });
  });

  const endpoints = () => [
    { name: 'list', handler: index, method: 'GET', path: '/api/v1/notifications', scope: 'read:notifications', wrong: 'write:notifications' },
    { name: 'show', handler: show, method: 'GET', path: '/api/v1/notifications/1', id: '1', scope: 'read:notifications', wrong: 'read:statuses' },
    { name: 'dismiss', handler: dismiss, method: 'POST', path: '/api/v1/notifications/1/dismiss', id: '1', scope: 'write:notifications', wrong: 'read:notifications' },
    { name: 'clear', handler: clear, method: 'POST', path: '/api/v1/notifications/clear', scope: 'write:notifications', wrong: 'read' },
  ];

  it.each(endpoints().map((e) => [e.name, e] as const))('%s: 401 without a token, 403 with the wrong scope, 422 with an app token, and nothing removed', async (_n, e) => {
    const send = (token?: string) => call(e.handler, { method: e.method, path: e.path, pathParameters: e.id ? { id: e.id } : undefined, token });
    expect((await send()).status).toBe(401);
    expect((await send('not-a-token')).body).toEqual({ error: 'The access token is invalid' });
    const wrong = await aUser({ scopes: [e.wrong] });
    const forbidden = await send(wrong.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: 'This action is outside the authorized scopes' });
    const app = await anAppToken(['read', 'write']);
    const asApp = await send(app.token);
    expect(asApp.status).toBe(422);
    expect(asApp.body).toEqual({ error: 'This method requires an authenticated user' });
    const right = await aUser({ scopes: [e.scope] });
    expect([200, 404]).toContain((await send(right.token)).status);
    expect(await stored(alice.account)).toHaveLength(1);
  });
});
