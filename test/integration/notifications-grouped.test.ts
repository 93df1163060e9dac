// Grouped notifications (Mastodon 4.3): GET /api/v2/notifications and its group
// endpoints, and the unread counts, driven through the handlers with HTTP events
// against the emulated table; notifications are written by the notify worker.
import { handler as muteHandler } from '../../functions/accounts/mute';
import { handler as v1Index } from '../../functions/notifications/index';
import { handler as v1UnreadCount } from '../../functions/notifications/unread_count';
import { handler as v2Accounts } from '../../functions/notifications/v2_accounts';
import { handler as v2Dismiss } from '../../functions/notifications/v2_dismiss';
import { handler as v2Index } from '../../functions/notifications/v2_index';
import { handler as v2Show } from '../../functions/notifications/v2_show';
import { handler as v2UnreadCount } from '../../functions/notifications/v2_unread_count';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { saveMarker } from '../../lib/db/markers';
import { hourOf } from '../../lib/db/notification_groups';
import { notificationRecord, type NotificationType } from '../../lib/db/notifications';
import { nowIso, putItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { sqsEvent } from '../../lib/queue';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// X-Db-Calls on every answer: the cost of a page is part of what is tested.
process.env.EXPOSE_METRICS = '1';

type Message = { type: NotificationType; accountId: string; fromAccountId: string; statusId?: string };

async function deliver(...messages: Message[]) {
  const res = await notifyWorker(sqsEvent('notify', messages));
  expect(res.batchItemFailures).toEqual([]);
}

const grouped = (token: string, query: Record<string, string | string[]> | string = {}) =>
  call(v2Index, { path: '/api/v2/notifications', query, token });
const show = (token: string, key: string) =>
  call(v2Show, { path: `/api/v2/notifications/${encodeURIComponent(key)}`, pathParameters: { group_key: key }, token });
const accountsOf = (token: string, key: string, query: Record<string, string> = {}) =>
  call(v2Accounts, { path: `/api/v2/notifications/${encodeURIComponent(key)}/accounts`, pathParameters: { group_key: key }, query, token });
const dismiss = (token: string, key: string) =>
  call(v2Dismiss, { method: 'POST', path: `/api/v2/notifications/${encodeURIComponent(key)}/dismiss`, pathParameters: { group_key: key }, token });

type Group = { group_key: string; type: string; notifications_count: number; sample_account_ids: string[]; status_id?: string; most_recent_notification_id: number; page_min_id: string; page_max_id: string };
const groupsOf = (body: { notification_groups: Group[] }) => body.notification_groups;
const keysOf = (body: { notification_groups: Group[] }) => groupsOf(body).map((g) => g.group_key);

/** The query of a Link header's rel target. */
function linkQuery(link: string | undefined, rel: 'next' | 'prev'): string {
  const m = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '');
  if (!m?.[1]) throw new Error(`no ${rel} link in ${link}`);
  return new URL(m[1]).search.slice(1);
}

describe('grouped notifications', () => {
  let alice: UserFixture;
  let bob: UserFixture;
  let carol: UserFixture;
  let dave: UserFixture;
  let post: { id: string; accountId: string };
  let other: { id: string; accountId: string };
  const hour = () => hourOf(nowIso());

  beforeAll(async () => {
    [alice, bob, carol, dave] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    post = await aStoredStatus(alice.account, { text: 'group me' });
    other = await aStoredStatus(alice.account, { text: 'another' });
    const mention = await aStoredStatus(dave.account, { text: 'hi alice' });
    const fav = (from: Account, status = post): Message => ({ type: 'favourite', accountId: alice.account.id, fromAccountId: from.id, statusId: status.id });
    // Oldest first: follows, favourites and reblogs of `post`, one favourite of `other`, then a mention.
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: bob.account.id });
    await deliver({ type: 'follow', accountId: alice.account.id, fromAccountId: carol.account.id });
    await deliver(fav(bob.account));
    await deliver(fav(carol.account));
    await deliver({ type: 'reblog', accountId: alice.account.id, fromAccountId: carol.account.id, statusId: post.id });
    await deliver(fav(dave.account));
    await deliver(fav(bob.account, other));
    await deliver({ type: 'mention', accountId: alice.account.id, fromAccountId: dave.account.id, statusId: mention.id });
  });

  it('groups favourites and reblogs of one status and follows; mentions stand alone', async () => {
    const res = await grouped(alice.token);
    expect(res.status).toBe(200);
    const groups = groupsOf(res.body);
    const h = hour();
    expect(groups.map((g) => [g.type, g.notifications_count])).toEqual([
      ['mention', 1],
      ['favourite', 1],
      ['favourite', 3],
      ['reblog', 1],
      ['follow', 2],
    ]);
    expect(groups[0]?.group_key).toMatch(/^ungrouped-\d+$/);
    expect(groups[1]?.group_key).toBe(`favourite-${other.id}-${h}`);
    expect(groups[2]).toMatchObject({ group_key: `favourite-${post.id}-${h}`, status_id: post.id, sample_account_ids: [dave.account.id, carol.account.id, bob.account.id] });
    expect(groups[3]?.group_key).toBe(`reblog-${post.id}-${h}`);
    expect(groups[4]).toMatchObject({ group_key: `follow-${h}`, sample_account_ids: [carol.account.id, bob.account.id] });
    expect(groups[4]).not.toHaveProperty('status_id');
    // Each status and account once beside the groups; the id a number, as Mastodon's.
    expect(res.body.statuses.map((s: { id: string }) => s.id).sort()).toEqual([post.id, other.id, res.body.statuses.find((s: { id: string }) => s.id !== post.id && s.id !== other.id).id].sort());
    expect(res.body.accounts.map((a: { id: string }) => a.id).sort()).toEqual([bob.account.id, carol.account.id, dave.account.id].sort());
    expect(res.text).toMatch(/"most_recent_notification_id":\d+[,}]/);
    // Auth, one Query of the partition, blocks/mutes/filters, then the renderers' batch reads: 12 here, whatever the count.
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(12);
  });

  it('narrows by types[], exclude_types[] and grouped_types[] (unknown names ignored)', async () => {
    expect(groupsOf((await grouped(alice.token, { types: ['mention', 'bogus'] })).body).map((g) => g.type)).toEqual(['mention']);
    expect(groupsOf((await grouped(alice.token, { exclude_types: ['favourite', 'mention'] })).body).map((g) => g.type)).toEqual(['reblog', 'follow']);
    const onlyFavourites = groupsOf((await grouped(alice.token, { grouped_types: ['favourite'] })).body);
    expect(onlyFavourites.map((g) => [g.type, g.notifications_count])).toEqual([
      ['mention', 1], ['favourite', 1], ['favourite', 3], ['reblog', 1], ['follow', 1], ['follow', 1],
    ]);
    expect(onlyFavourites[3]?.group_key).toMatch(/^ungrouped-/);
    expect(groupsOf((await grouped(alice.token, { account_id: bob.account.id })).body).map((g) => g.type)).toEqual(['favourite', 'favourite', 'follow']);
  });

  it('pages by groups both ways with Link', async () => {
    const first = await grouped(alice.token, { limit: '2' });
    expect(keysOf(first.body)).toHaveLength(2);
    const next = await grouped(alice.token, linkQuery(first.headers.link, 'next'));
    expect(next.status).toBe(200);
    const all = keysOf((await grouped(alice.token)).body);
    expect(keysOf(next.body)).toEqual(all.slice(2, 4));
    expect(linkQuery(first.headers.link, 'next')).toContain('limit=2');
    // Back up from the second page: the groups immediately newer, newest first.
    const prev = await grouped(alice.token, linkQuery(next.headers.link, 'prev'));
    expect(keysOf(prev.body)).toEqual(all.slice(0, 2));
    const full = groupsOf(next.body)[0];
    expect(full?.page_max_id).toBeDefined();
  });

  it('shows a group by key, lists its accounts, and 404s a key that is not the viewer\'s', async () => {
    const key = `favourite-${post.id}-${hour()}`;
    const res = await show(alice.token, key);
    expect(res.status).toBe(200);
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(12);
    expect(groupsOf(res.body)).toEqual([expect.objectContaining({ group_key: key, notifications_count: 3, status_id: post.id })]);
    expect(groupsOf(res.body)[0]).not.toHaveProperty('page_min_id');
    expect((await show(bob.token, key)).status).toBe(404);

    const accounts = await accountsOf(alice.token, key);
    expect(accounts.status).toBe(200);
    expect(Number(accounts.headers['x-db-calls'])).toBeLessThanOrEqual(9);
    expect(accounts.body.map((a: { id: string }) => a.id)).toEqual([dave.account.id, carol.account.id, bob.account.id]);
    const paged = await accountsOf(alice.token, key, { limit: '2' });
    expect(paged.body).toHaveLength(2);
    const rest = await accountsOf(alice.token, key, Object.fromEntries(new URLSearchParams(linkQuery(paged.headers.link, 'next'))));
    expect(rest.body.map((a: { id: string }) => a.id)).toEqual([bob.account.id]);
    expect((await accountsOf(bob.token, key)).body).toEqual([]);
  });

  it('groups notifications stored before group keys by their hour, and finds them by the derived key', async () => {
    const legacyStatus = await aStoredStatus(alice.account, { text: 'old times' });
    for (const from of [bob.account, carol.account]) {
      await putItem(notificationRecord({ id: newId(), type: 'favourite', accountId: alice.account.id, fromAccountId: from.id, statusId: legacyStatus.id, createdAt: nowIso() }));
    }
    const key = `favourite-${legacyStatus.id}-${hour()}`;
    const top = groupsOf((await grouped(alice.token, { limit: '1' })).body)[0];
    expect(top).toMatchObject({ group_key: key, notifications_count: 2 });
    expect(groupsOf((await show(alice.token, key)).body)[0]?.notifications_count).toBe(2);
    expect((await dismiss(alice.token, key)).status).toBe(200);
    expect((await show(alice.token, key)).status).toBe(404);
  });

  it('dismisses a whole group, and nothing of another account\'s', async () => {
    const key = `follow-${hour()}`;
    expect((await dismiss(bob.token, key)).status).toBe(200);
    expect((await show(alice.token, key)).status).toBe(200);
    const dismissed = await dismiss(alice.token, key);
    expect(dismissed.status).toBe(200);
    expect(Number(dismissed.headers['x-db-calls'])).toBeLessThanOrEqual(5);
    expect((await show(alice.token, key)).status).toBe(404);
    expect(groupsOf((await grouped(alice.token)).body).map((g) => g.type)).not.toContain('follow');
    const v1 = await call(v1Index, { path: '/api/v1/notifications', query: { types: ['follow'] }, token: alice.token });
    expect(v1.body).toEqual([]);
  });

  it('renders group_key on v1 notifications', async () => {
    const v1 = await call(v1Index, { path: '/api/v1/notifications', query: { types: ['favourite'] }, token: alice.token });
    expect(v1.body.map((n: { group_key: string }) => n.group_key)).toContain(`favourite-${post.id}-${hour()}`);
  });

  describe('unread counts from the notifications marker', () => {
    let reader: UserFixture;
    beforeAll(async () => {
      reader = await aUser();
      const status = await aStoredStatus(reader.account);
      for (const from of [bob, carol, dave]) await deliver({ type: 'favourite', accountId: reader.account.id, fromAccountId: from.account.id, statusId: status.id });
    });
    const v1 = (query: Record<string, string> = {}) => call(v1UnreadCount, { path: '/api/v1/notifications/unread_count', query, token: reader.token });
    const v2 = (query: Record<string, string> = {}) => call(v2UnreadCount, { path: '/api/v2/notifications/unread_count', query, token: reader.token });

    it('counts notifications (v1) and groups (v2) after the marker, up to limit', async () => {
      expect((await v1()).body).toEqual({ count: 3 });
      expect((await v2()).body).toEqual({ count: 1 });
      expect(Number((await v2()).headers['x-db-calls'])).toBeLessThanOrEqual(9);
      expect((await v1({ limit: '2' })).body).toEqual({ count: 2 });
      const listed = await call(v1Index, { path: '/api/v1/notifications', token: reader.token });
      await saveMarker(reader.account.id, 'notifications', listed.body[1].id);
      expect((await v1()).body).toEqual({ count: 1 });
      expect((await v2({ grouped_types: 'mention' })).body).toEqual({ count: 1 });
      await saveMarker(reader.account.id, 'notifications', listed.body[0].id);
      expect((await v1()).body).toEqual({ count: 0 });
      expect((await v2()).body).toEqual({ count: 0 });
    });

    it('leaves out notifications from accounts muted with their notifications', async () => {
      await saveMarker(reader.account.id, 'notifications', '1');
      expect((await v1()).body).toEqual({ count: 3 });
      const muted = await call(muteHandler, { method: 'POST', path: `/api/v1/accounts/${dave.account.id}/mute`, pathParameters: { id: dave.account.id }, token: reader.token });
      expect(muted.status).toBe(200);
      expect((await v1()).body).toEqual({ count: 2 });
      const group = groupsOf((await call(v2Index, { path: '/api/v2/notifications', token: reader.token })).body)[0];
      expect(group).toMatchObject({ notifications_count: 2, sample_account_ids: [carol.account.id, bob.account.id] });
    });
  });

  describe('bad input', () => {
    let readOnly: UserFixture;
    let writeOnly: UserFixture;
    beforeAll(async () => {
      [readOnly, writeOnly] = await Promise.all([aUser({ scopes: ['read:notifications'] }), aUser({ scopes: ['write:notifications'] })]);
    });
    const goodKey = () => `favourite-${post.id}-${hour()}`;

    it.each([
      ['no group key of ours', 'nope'],
      ['an ungrouped key that is not an id', 'ungrouped-abc'],
      ['a key with a non-numeric status', 'favourite-abc-123'],
      ['an unknown type', 'mention-1-2'],
      ['an oversize key', `favourite-${'9'.repeat(300)}-1`],
      ['an id of nobody\'s notification', 'ungrouped-12345'],
    ])('GET a group: %s is 404 (good twin 200)', async (_label, key) => {
      expect((await show(alice.token, key)).status).toBe(404);
      expect((await show(alice.token, goodKey())).status).toBe(200);
      expect((await accountsOf(alice.token, key)).body).toEqual([]);
    });

    it.each([
      [{ limit: 'abc' }, 422],
      [{ limit: '1.5' }, 422],
      [{ max_id: 'x' }, 422],
      [{ account_id: 'nobody' }, 422],
      [{ expand_accounts: 'everything' }, 422],
      [{ types: 'x'.repeat(100) }, 422],
      [{ limit: '1000' }, 200],
      [{ expand_accounts: 'partial_avatars' }, 200],
      [{ types: 'bogus' }, 200],
    ] as [Record<string, string>, number][])('GET /api/v2/notifications %j is %i', async (query, status) => {
      const res = await grouped(alice.token, query);
      expect(res.status).toBe(status);
      if (status >= 400) expect(res.body).toEqual({ error: expect.any(String) });
    });

    it('clamps limit to 80 and lists partial accounts on request', async () => {
      const partial = await grouped(alice.token, { expand_accounts: 'partial_avatars' });
      const full = partial.body.accounts.map((a: { id: string }) => a.id);
      for (const p of partial.body.partial_accounts) {
        expect(Object.keys(p).sort()).toEqual(['acct', 'avatar', 'avatar_static', 'bot', 'id', 'locked', 'url']);
        expect(full).not.toContain(p.id);
      }
    });

    it.each([
      ['GET v2 without a token', 401, () => call(v2Index, { path: '/api/v2/notifications' })],
      ['GET v2 with write only', 403, () => grouped(writeOnly.token)],
      ['GET v2 with read:notifications', 200, () => grouped(readOnly.token)],
      ['GET a group with write only', 403, () => show(writeOnly.token, 'ungrouped-1')],
      ['accounts with write only', 403, () => accountsOf(writeOnly.token, 'ungrouped-1')],
      ['dismiss with read only', 403, () => dismiss(readOnly.token, 'ungrouped-1')],
      ['dismiss with write:notifications', 200, () => dismiss(writeOnly.token, 'ungrouped-1')],
      ['v1 unread_count with write only', 403, () => call(v1UnreadCount, { path: '/api/v1/notifications/unread_count', token: writeOnly.token })],
      ['v2 unread_count with read only', 200, () => call(v2UnreadCount, { path: '/api/v2/notifications/unread_count', token: readOnly.token })],
      ['v2 unread_count with a bad limit', 422, () => call(v2UnreadCount, { path: '/api/v2/notifications/unread_count', query: { limit: 'many' }, token: readOnly.token })],
    ] as [string, number, () => Promise<{ status: number }>][])('%s answers %i', async (_label, status, request) => {
      expect((await request()).status).toBe(status);
    });
  });
});
