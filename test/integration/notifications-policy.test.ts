// Notification policy and notification requests (Mastodon 4.3): the policy
// endpoints (v2 and v1), the accept / filter / drop decision of each criterion
// when the notify worker creates a notification, filtered notifications kept out
// of the lists, and the request endpoints, driven through the handlers with HTTP
// events against the emulated table.
import { handler as v1Index } from '../../functions/notifications/index';
import { handler as policyShow } from '../../functions/notifications/policy_show';
import { handler as policyUpdate } from '../../functions/notifications/policy_update';
import { handler as requestsAccept } from '../../functions/notifications/requests_accept';
import { handler as requestsAcceptBulk } from '../../functions/notifications/requests_accept_bulk';
import { handler as requestsDismiss } from '../../functions/notifications/requests_dismiss';
import { handler as requestsDismissBulk } from '../../functions/notifications/requests_dismiss_bulk';
import { handler as requestsIndex } from '../../functions/notifications/requests_index';
import { handler as requestsMerged } from '../../functions/notifications/requests_merged';
import { handler as requestsShow } from '../../functions/notifications/requests_show';
import { handler as unreadCount } from '../../functions/notifications/unread_count';
import { handler as v2Index } from '../../functions/notifications/v2_index';
import { handler as v2PolicyShow } from '../../functions/notifications/v2_policy_show';
import { handler as v2PolicyUpdate } from '../../functions/notifications/v2_policy_update';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { followRecord } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import type { NotificationType } from '../../lib/db/notifications';
import { putItem, updateItem } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { sqsEvent } from '../../lib/queue';
import { z } from 'zod';
import { aFollow, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, warmContainer } from '../support/http';

process.env.EXPOSE_METRICS = '1';

const DAY_MS = 24 * 3600 * 1000;

const v2Policy = (token: string) => call(v2PolicyShow, { path: '/api/v2/notifications/policy', token });
const patchPolicy = (token: string, json: unknown) => call(v2PolicyUpdate, { method: 'PATCH', path: '/api/v2/notifications/policy', json, token });
const v1Policy = (token: string) => call(policyShow, { path: '/api/v1/notifications/policy', token });
const putV1Policy = (token: string, json: unknown) => call(policyUpdate, { method: 'PUT', path: '/api/v1/notifications/policy', json, token });
const v1List = (token: string) => call(v1Index, { path: '/api/v1/notifications', token });
const v2List = (token: string, query: Record<string, string> = {}) => call(v2Index, { path: '/api/v2/notifications', query, token });
const requests = (token: string, query: Record<string, string> = {}) => call(requestsIndex, { path: '/api/v1/notifications/requests', query, token });
const request = (token: string, id: string) => call(requestsShow, { path: `/api/v1/notifications/requests/${id}`, pathParameters: { id }, token });
const accept = (token: string, id: string) => call(requestsAccept, { method: 'POST', path: `/api/v1/notifications/requests/${id}/accept`, pathParameters: { id }, token });
const dismiss = (token: string, id: string) => call(requestsDismiss, { method: 'POST', path: `/api/v1/notifications/requests/${id}/dismiss`, pathParameters: { id }, token });
const acceptBulk = (token: string, body: unknown) => call(requestsAcceptBulk, { method: 'POST', path: '/api/v1/notifications/requests/accept', json: body, token });
const dismissBulk = (token: string, body: unknown) => call(requestsDismissBulk, { method: 'POST', path: '/api/v1/notifications/requests/dismiss', json: body, token });

const idsOf = (body: { id: string }[]) => body.map((x) => x.id);
const groupedIdsOf = (body: { notification_groups: { page_max_id: string }[] }) => body.notification_groups.map((g) => g.page_max_id);

/** An account created long ago (not a "new account" for the policy). */
async function makeOld(account: Account) {
  await updateItem({ Key: keys.account(account.id), UpdateExpression: 'SET createdAt = :old', ExpressionAttributeValues: { ':old': new Date(Date.now() - 90 * DAY_MS).toISOString() } }, z.unknown());
}

/** `follower` has followed `followed` for `days` days. */
async function followSince(follower: Account, followed: Account, days: number) {
  await putItem(followRecord({ id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date(Date.now() - days * DAY_MS).toISOString() }));
}

const mentionOf = (a: Account) => ({ id: a.id, username: a.username, acct: a.username, url: `https://social.example/@${a.username}` });

/** A status of `from` mentioning `to` (direct unless told). */
const aMention = (from: Account, to: Account, overrides: Parameters<typeof aStoredStatus>[1] = {}) =>
  aStoredStatus(from, { text: `@${to.username} hi`, visibility: 'direct', mentions: [mentionOf(to)], ...overrides });

const notifyOf = (type: NotificationType, to: Account, from: Account, statusId?: string) => notify({ type, accountId: to.id, fromAccountId: from.id, ...(statusId ? { statusId } : {}) });

async function favouriteBy(from: Account, to: Account) {
  const post = await aStoredStatus(to, { text: 'a post' });
  return notifyOf('favourite', to, from, post.id);
}

describe('notification policy', () => {
  describe('reading and changing it', () => {
    let alice: UserFixture;
    beforeAll(async () => {
      alice = await aUser();
    });

    it('accepts everything but limited accounts (filtered, Mastodon 4.3) until the account sets a policy, and says what it holds back', async () => {
      await warmContainer();
      const res = await v2Policy(alice.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        for_not_following: 'accept',
        for_not_followers: 'accept',
        for_new_accounts: 'accept',
        for_private_mentions: 'accept',
        for_limited_accounts: 'filter',
        for_bots: 'accept',
        summary: { pending_requests_count: 0, pending_notifications_count: 0 },
      });
      // The token's reads, then one GetItem of the policy and one Query of the requests.
      const merged = await call(requestsMerged, { path: '/api/v1/notifications/requests/merged', token: alice.token });
      expect(Number(res.headers['x-db-calls'])).toBe(Number(merged.headers['x-db-calls']) + 2);
      expect((await v1Policy(alice.token)).body).toEqual({
        filter_not_following: false,
        filter_not_followers: false,
        filter_new_accounts: false,
        filter_private_mentions: false,
        summary: { pending_requests_count: 0, pending_notifications_count: 0 },
      });
    });

    it('PATCH v2 changes the criteria given and keeps the others; v1 shows them as booleans', async () => {
      const res = await patchPolicy(alice.token, { for_not_following: 'filter', for_new_accounts: 'drop' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ for_not_following: 'filter', for_not_followers: 'accept', for_new_accounts: 'drop', for_private_mentions: 'accept' });
      expect((await patchPolicy(alice.token, { for_private_mentions: 'filter' })).body).toMatchObject({ for_not_following: 'filter', for_new_accounts: 'drop', for_private_mentions: 'filter' });
      expect((await v1Policy(alice.token)).body).toMatchObject({ filter_not_following: true, filter_not_followers: false, filter_new_accounts: true, filter_private_mentions: true });
    });

    it('PUT v1 sets booleans: true filters (a dropping criterion stays dropping), false accepts', async () => {
      const res = await putV1Policy(alice.token, { filter_not_following: false, filter_not_followers: true, filter_new_accounts: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ filter_not_following: false, filter_not_followers: true, filter_new_accounts: true });
      expect((await v2Policy(alice.token)).body).toMatchObject({ for_not_following: 'accept', for_not_followers: 'filter', for_new_accounts: 'drop', for_private_mentions: 'filter' });
      expect((await putV1Policy(alice.token, { filter_new_accounts: 'false' })).body).toMatchObject({ filter_new_accounts: false });
      expect((await v2Policy(alice.token)).body).toMatchObject({ for_new_accounts: 'accept' });
    });

    describe('bad input', () => {
      let readOnly: UserFixture;
      let writeOnly: UserFixture;
      beforeAll(async () => {
        [readOnly, writeOnly] = await Promise.all([aUser({ scopes: ['read:notifications'] }), aUser({ scopes: ['write:notifications'] })]);
      });

      it.each([
        ['an unknown action', { for_not_following: 'block' }, { for_not_following: 'filter' }],
        ['a number', { for_not_followers: 1 }, { for_not_followers: 'accept' }],
        ['a list', { for_new_accounts: ['drop'] }, { for_new_accounts: 'drop' }],
        ['an oversize string', { for_private_mentions: 'x'.repeat(10_000) }, { for_private_mentions: 'filter' }],
        ['a null', { for_limited_accounts: null }, { for_limited_accounts: 'accept' }],
      ])('PATCH v2 with %s is 422, its good twin 200', async (_label, bad, good) => {
        const res = await patchPolicy(alice.token, bad);
        expect(res.status).toBe(422);
        expect(typeof res.body.error).toBe('string');
        expect((await patchPolicy(alice.token, good)).status).toBe(200);
      });

      it.each([
        ['a word that is not a boolean', { filter_not_following: 'maybe' }, { filter_not_following: 'true' }],
        ['an object', { filter_private_mentions: { a: 1 } }, { filter_private_mentions: false }],
      ])('PUT v1 with %s is 422, its good twin 200', async (_label, bad, good) => {
        expect((await putV1Policy(alice.token, bad)).status).toBe(422);
        expect((await putV1Policy(alice.token, good)).status).toBe(200);
      });

      it('needs a token, and read:notifications to read, write:notifications to change', async () => {
        expect((await v2Policy('')).status).toBe(401);
        expect((await patchPolicy('', { for_not_following: 'filter' })).status).toBe(401);
        expect((await v2Policy(writeOnly.token)).status).toBe(403);
        expect((await v1Policy(writeOnly.token)).status).toBe(403);
        expect((await patchPolicy(readOnly.token, { for_not_following: 'filter' })).status).toBe(403);
        expect((await putV1Policy(readOnly.token, { filter_not_following: true })).status).toBe(403);
        // Good twins.
        expect((await v2Policy(readOnly.token)).status).toBe(200);
        expect((await patchPolicy(writeOnly.token, { for_not_following: 'filter' })).status).toBe(200);
        // One account's policy is its own.
        expect((await v2Policy(readOnly.token)).body.for_not_following).toBe('accept');
      });
    });
  });

  describe('deciding when a notification is created', () => {
    it('for_not_following: drop and filter hold back strangers, never accounts the recipient follows', async () => {
      const [alice, friend, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
      await aFollow(alice.account, friend.account);
      await patchPolicy(alice.token, { for_not_following: 'drop' });
      expect(await favouriteBy(stranger.account, alice.account)).toBe('dropped');
      expect(await favouriteBy(friend.account, alice.account)).toBe('created');
      await patchPolicy(alice.token, { for_not_following: 'filter' });
      expect(await favouriteBy(stranger.account, alice.account)).toBe('filtered');
      expect(await notifyOf('follow', alice.account, stranger.account)).toBe('filtered');
      // Polls and edits are never held back.
      const edited = await aStoredStatus(stranger.account, { text: 'edited' });
      expect(await notifyOf('update', alice.account, stranger.account, edited.id)).toBe('created');
      await patchPolicy(alice.token, { for_not_following: 'accept' });
      expect(await favouriteBy(stranger.account, alice.account)).toBe('created');
    });

    it('for_bots (Mastodon 4.6): holds back automated accounts the recipient does not follow', async () => {
      const [alice, bot, followedBot, person] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
      await Promise.all([updateAccount(bot.account.id, { bot: true }), updateAccount(followedBot.account.id, { bot: true })]);
      await aFollow(alice.account, followedBot.account);
      const patched = await patchPolicy(alice.token, { for_bots: 'filter' });
      expect(patched.body).toMatchObject({ for_bots: 'filter', for_not_following: 'accept' });
      expect(await favouriteBy(bot.account, alice.account)).toBe('filtered');
      expect(await favouriteBy(followedBot.account, alice.account)).toBe('created');
      expect(await favouriteBy(person.account, alice.account)).toBe('created');
      await patchPolicy(alice.token, { for_bots: 'drop' });
      expect(await favouriteBy(bot.account, alice.account)).toBe('dropped');
      expect((await patchPolicy(alice.token, { for_bots: 'sometimes' })).status).toBe(422);
      expect((await v2Policy(alice.token)).body).toMatchObject({ for_bots: 'drop' });
    });

    it('for_not_followers: holds back accounts that do not follow the recipient, or only for under 3 days', async () => {
      const [alice, oldFollower, newFollower, stranger] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
      await followSince(oldFollower.account, alice.account, 4);
      await followSince(newFollower.account, alice.account, 1);
      await patchPolicy(alice.token, { for_not_followers: 'filter' });
      expect(await favouriteBy(oldFollower.account, alice.account)).toBe('created');
      expect(await favouriteBy(newFollower.account, alice.account)).toBe('filtered');
      expect(await favouriteBy(stranger.account, alice.account)).toBe('filtered');
      await patchPolicy(alice.token, { for_not_followers: 'drop' });
      expect(await favouriteBy(stranger.account, alice.account)).toBe('dropped');
      expect(await favouriteBy(oldFollower.account, alice.account)).toBe('created');
    });

    it('for_new_accounts: holds back accounts younger than 30 days the recipient does not follow', async () => {
      const [alice, newcomer, oldTimer, followedNewcomer] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
      await makeOld(oldTimer.account);
      await aFollow(alice.account, followedNewcomer.account);
      await patchPolicy(alice.token, { for_new_accounts: 'filter' });
      expect(await favouriteBy(newcomer.account, alice.account)).toBe('filtered');
      expect(await favouriteBy(oldTimer.account, alice.account)).toBe('created');
      expect(await favouriteBy(followedNewcomer.account, alice.account)).toBe('created');
      await patchPolicy(alice.token, { for_new_accounts: 'drop' });
      expect(await favouriteBy(newcomer.account, alice.account)).toBe('dropped');
    });

    it('for_private_mentions: holds back direct mentions, not public ones, not replies to the recipient\'s own private mention, not from followed accounts', async () => {
      const [alice, stranger, friend] = await Promise.all([aUser(), aUser(), aUser()]);
      await aFollow(alice.account, friend.account);
      await patchPolicy(alice.token, { for_private_mentions: 'filter' });
      const direct = await aMention(stranger.account, alice.account);
      expect(await notifyOf('mention', alice.account, stranger.account, direct.id)).toBe('filtered');
      const open = await aMention(stranger.account, alice.account, { visibility: 'public' });
      expect(await notifyOf('mention', alice.account, stranger.account, open.id)).toBe('created');
      // Alice wrote to the stranger privately first: the answer, two replies down, is let through.
      const opening = await aMention(alice.account, stranger.account);
      const answer = await aMention(stranger.account, alice.account, { inReplyToId: opening.id, inReplyToAccountId: alice.account.id, conversationId: opening.conversationId });
      const again = await aMention(stranger.account, alice.account, { inReplyToId: answer.id, inReplyToAccountId: stranger.account.id, conversationId: opening.conversationId });
      expect(await notifyOf('mention', alice.account, stranger.account, answer.id)).toBe('created');
      expect(await notifyOf('mention', alice.account, stranger.account, again.id)).toBe('created');
      // A reply to someone else's private status is not a response to the recipient.
      const elsewhere = await aMention(friend.account, stranger.account);
      const reply = await aMention(stranger.account, alice.account, { inReplyToId: elsewhere.id, inReplyToAccountId: friend.account.id });
      expect(await notifyOf('mention', alice.account, stranger.account, reply.id)).toBe('filtered');
      const fromFriend = await aMention(friend.account, alice.account);
      expect(await notifyOf('mention', alice.account, friend.account, fromFriend.id)).toBe('created');
      await patchPolicy(alice.token, { for_private_mentions: 'drop' });
      const dropped = await aMention(stranger.account, alice.account);
      expect(await notifyOf('mention', alice.account, stranger.account, dropped.id)).toBe('dropped');
    });

    it('keeps filtered notifications out of the v1 and v2 lists and the unread count; v2 lists them with include_filtered', async () => {
      const [alice, friend, stranger] = await Promise.all([aUser(), aUser(), aUser()]);
      await aFollow(alice.account, friend.account);
      await patchPolicy(alice.token, { for_not_following: 'filter' });
      const worker = await notifyWorker(sqsEvent('notify', [
        { type: 'follow', accountId: alice.account.id, fromAccountId: friend.account.id },
        { type: 'follow', accountId: alice.account.id, fromAccountId: stranger.account.id },
      ]));
      expect(worker.batchItemFailures).toEqual([]);
      const v1 = await v1List(alice.token);
      expect(v1.body.map((n: { account: { id: string } }) => n.account.id)).toEqual([friend.account.id]);
      const v2 = await v2List(alice.token);
      expect(v2.body.notification_groups).toHaveLength(1);
      expect(v2.body.notification_groups[0].sample_account_ids).toEqual([friend.account.id]);
      const withFiltered = await v2List(alice.token, { include_filtered: 'true', grouped_types: 'favourite' });
      expect(withFiltered.body.notification_groups.map((g: { sample_account_ids: string[] }) => g.sample_account_ids[0])).toEqual([stranger.account.id, friend.account.id]);
      expect((await call(unreadCount, { path: '/api/v1/notifications/unread_count', token: alice.token })).body).toEqual({ count: 1 });
    });
  });
});

describe('notification requests', () => {
  let alice: UserFixture;
  let bob: UserFixture;
  let carol: UserFixture;
  let mallory: UserFixture;
  let bobRequest: string;
  let carolRequest: string;
  let bobMentions: string[];

  beforeAll(async () => {
    [alice, bob, carol, mallory] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await patchPolicy(alice.token, { for_not_following: 'filter' });
    await patchPolicy(mallory.token, { for_not_following: 'filter' });
    bobMentions = [];
    for (let i = 0; i < 2; i++) {
      const status = await aMention(bob.account, alice.account, { visibility: 'public' });
      expect(await notifyOf('mention', alice.account, bob.account, status.id)).toBe('filtered');
      bobMentions.push(status.id);
    }
    expect(await favouriteBy(carol.account, alice.account)).toBe('filtered');
    // A redelivered message counts once.
    const status = await aMention(bob.account, alice.account, { visibility: 'public' });
    expect(await notifyOf('mention', alice.account, bob.account, status.id)).toBe('filtered');
    expect(await notifyOf('mention', alice.account, bob.account, status.id)).toBe('duplicate');
    bobMentions.push(status.id);
    // Mallory's own request from bob.
    expect(await favouriteBy(bob.account, mallory.account)).toBe('filtered');
  });

  it('lists one request per sender, newest first, with its count and last status; the policy summary counts them', async () => {
    const res = await requests(alice.token);
    expect(res.status).toBe(200);
    expect(res.body.map((r: { account: { id: string } }) => r.account.id)).toEqual([carol.account.id, bob.account.id]);
    const [fromCarol, fromBob] = res.body;
    expect(fromBob).toEqual({
      id: expect.stringMatching(/^\d+$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      account: expect.objectContaining({ id: bob.account.id }),
      notifications_count: '3',
      last_status: expect.objectContaining({ id: bobMentions[2] }),
    });
    // A favourite names the recipient's own status: no last status of the sender's.
    expect(fromCarol).toMatchObject({ notifications_count: '1', last_status: null });
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(8);
    [carolRequest = '', bobRequest = ''] = idsOf(res.body);
    expect((await v2Policy(alice.token)).body.summary).toEqual({ pending_requests_count: 2, pending_notifications_count: 4 });
  });

  it('pages with Link', async () => {
    const first = await requests(alice.token, { limit: '1' });
    expect(idsOf(first.body)).toEqual([carolRequest]);
    expect(first.headers.link).toContain(`max_id=${carolRequest}`);
    const next = await requests(alice.token, { limit: '1', max_id: carolRequest });
    expect(idsOf(next.body)).toEqual([bobRequest]);
  });

  it('shows one request; someone else\'s, or an id that is not one, is 404', async () => {
    const res = await request(alice.token, bobRequest);
    expect(res.status).toBe(200);
    // The token's reads, then one Query for the request and the batch reads of its account and status.
    const merged = await call(requestsMerged, { path: '/api/v1/notifications/requests/merged', token: alice.token });
    expect(Number(res.headers['x-db-calls'])).toBeLessThanOrEqual(Number(merged.headers['x-db-calls']) + 5);
    expect(res.body).toMatchObject({ id: bobRequest, notifications_count: '3' });
    const mallorys = idsOf((await requests(mallory.token)).body)[0]!;
    expect((await request(alice.token, mallorys)).status).toBe(404);
    expect((await request(mallory.token, mallorys)).status).toBe(200);
    for (const bad of ['abc', '1'.repeat(30), '12345']) expect((await request(alice.token, bad)).status).toBe(404);
    expect((await accept(alice.token, mallorys)).status).toBe(404);
    expect((await dismiss(alice.token, mallorys)).status).toBe(404);
    expect((await request(mallory.token, mallorys)).status).toBe(200);
  });

  it('says the merge is done', async () => {
    expect((await call(requestsMerged, { path: '/api/v1/notifications/requests/merged', token: alice.token })).body).toEqual({ merged: true });
  });

  it('accepting makes the request\'s notifications normal ones, and the sender\'s later ones are never filtered', async () => {
    expect(v1IdsFrom(await v1List(alice.token), bob.account)).toEqual([]);
    const res = await accept(alice.token, bobRequest);
    expect(res.status).toBe(200);
    expect((await request(alice.token, bobRequest)).status).toBe(404);
    const listed = await v1List(alice.token);
    expect(listed.body.filter((n: { account: { id: string } }) => n.account.id === bob.account.id).map((n: { status: { id: string } }) => n.status.id)).toEqual([...bobMentions].reverse());
    const later = await aMention(bob.account, alice.account, { visibility: 'public' });
    expect(await notifyOf('mention', alice.account, bob.account, later.id)).toBe('created');
    expect((await v2Policy(alice.token)).body.summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 });
  });

  it('dismissing removes the request and its notifications; the sender\'s next ones are filtered again', async () => {
    const res = await dismiss(alice.token, carolRequest);
    expect(res.status).toBe(200);
    expect((await request(alice.token, carolRequest)).status).toBe(404);
    const all = await v2List(alice.token, { include_filtered: 'true' });
    expect(groupedIdsOf(all.body).length).toBeGreaterThan(0);
    expect(all.body.notification_groups.some((g: { sample_account_ids: string[] }) => g.sample_account_ids.includes(carol.account.id))).toBe(false);
    expect(await favouriteBy(carol.account, alice.account)).toBe('filtered');
    const again = await requests(alice.token);
    expect(again.body.map((r: { account: { id: string } }) => r.account.id)).toEqual([carol.account.id]);
    expect(again.body[0].id).not.toBe(carolRequest);
  });

  it('accepts and dismisses in bulk, passing over ids that are not the viewer\'s', async () => {
    const [dave, erin] = await Promise.all([aUser(), aUser()]);
    expect(await favouriteBy(dave.account, alice.account)).toBe('filtered');
    expect(await favouriteBy(erin.account, alice.account)).toBe('filtered');
    const byAccount = new Map<string, string>((await requests(alice.token)).body.map((r: { id: string; account: { id: string } }) => [r.account.id, r.id]));
    const mallorys = idsOf((await requests(mallory.token)).body)[0]!;
    const accepted = await acceptBulk(alice.token, { id: [byAccount.get(dave.account.id)!, mallorys] });
    expect(accepted.status).toBe(200);
    const dismissed = await dismissBulk(alice.token, { id: [byAccount.get(erin.account.id)!, byAccount.get(carol.account.id)!, mallorys] });
    expect(dismissed.status).toBe(200);
    expect((await requests(alice.token)).body).toEqual([]);
    expect(v1IdsFrom(await v1List(alice.token), dave.account)).toHaveLength(1);
    expect(v1IdsFrom(await v1List(alice.token), erin.account)).toHaveLength(0);
    expect((await request(mallory.token, mallorys)).status).toBe(200);
    expect((await v2Policy(alice.token)).body.summary).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
  });

  describe('bad input', () => {
    let readOnly: UserFixture;
    let writeOnly: UserFixture;
    let mallorys: string;
    beforeAll(async () => {
      [readOnly, writeOnly] = await Promise.all([aUser({ scopes: ['read:notifications'] }), aUser({ scopes: ['write:notifications'] })]);
      mallorys = idsOf((await requests(mallory.token)).body)[0]!;
    });

    it.each([
      ['no id', {}],
      ['an id that is not one', { id: ['abc'] }],
      ['a number list', { id: [[1]] }],
      ['an empty list', { id: [] }],
      ['an oversize id', { id: ['1'.repeat(30)] }],
      ['a number', { id: [12345] }],
    ])('bulk accept / dismiss with %s acts on nothing and answers 200, as Mastodon', async (_label, body) => {
      const before = (await requests(mallory.token)).body;
      expect(await acceptBulk(alice.token, body)).toMatchObject({ status: 200, body: {} });
      expect(await dismissBulk(alice.token, body)).toMatchObject({ status: 200, body: {} });
      expect((await requests(mallory.token)).body).toEqual(before);
    });

    it('bulk accept / dismiss with more ids than a page is 422 (good twin 200)', async () => {
      const tooMany = { id: Array.from({ length: 81 }, (_, i) => String(i + 1)) };
      expect((await acceptBulk(alice.token, tooMany)).status).toBe(422);
      expect((await dismissBulk(alice.token, tooMany)).status).toBe(422);
      expect((await acceptBulk(alice.token, { id: tooMany.id.slice(1) })).status).toBe(200);
      expect((await dismissBulk(alice.token, { id: '12345' })).status).toBe(200);
    });

    it.each([
      ['limit not a number', { limit: 'abc' }],
      ['max_id not an id', { max_id: 'x' }],
    ])('listing with %s is 422 (good twin 200)', async (_label, query) => {
      expect((await requests(alice.token, query)).status).toBe(422);
      expect((await requests(alice.token, { limit: '2' })).status).toBe(200);
    });

    it('needs read:notifications to read and write:notifications to act', async () => {
      expect((await requests('')).status).toBe(401);
      expect((await requests(writeOnly.token)).status).toBe(403);
      expect((await request(writeOnly.token, mallorys)).status).toBe(403);
      expect((await call(requestsMerged, { path: '/api/v1/notifications/requests/merged', token: writeOnly.token })).status).toBe(403);
      expect((await accept(readOnly.token, mallorys)).status).toBe(403);
      expect((await dismiss(readOnly.token, mallorys)).status).toBe(403);
      expect((await acceptBulk(readOnly.token, { id: [mallorys] })).status).toBe(403);
      expect((await dismissBulk(readOnly.token, { id: [mallorys] })).status).toBe(403);
      // Good twins: the right scopes reach the handler (someone else's request: 404, an empty list: 200).
      expect((await requests(readOnly.token)).status).toBe(200);
      expect((await accept(writeOnly.token, mallorys)).status).toBe(404);
      expect((await request(mallory.token, mallorys)).status).toBe(200);
    });
  });
});

function v1IdsFrom(res: { body: { id: string; account: { id: string } }[] }, from: Account): string[] {
  return res.body.filter((n) => n.account.id === from.id).map((n) => n.id);
}
