// The purge of a suspended account's data, 30 days after the suspension (lib/moderation/purge.ts), run by the
// sweeper's handler against dynalite and s3rver: what it removes (statuses with their files, reblogs, favourites,
// bookmarks, follows, lists and list memberships, notifications received and caused, notification requests both ways,
// blocks and mutes both ways, domain blocks, filters, featured and followed tags, endorsements, markers, notes,
// conversations, scheduled statuses, uploads never posted, tokens, push subscriptions, the login, the profile; its
// strikes and the reports about it stay),
// what it keeps (the account as a suspended tombstone whose username stays taken), that it goes a page at a time
// over several runs, resuming where each stopped, and that it never starts for an account no longer suspended.
import { readFileSync } from 'node:fs';
import type { ScheduledEvent, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as bookmark } from '../../functions/statuses/bookmark';
import { handler as reblog } from '../../functions/statuses/reblog';
import { handler as createList } from '../../functions/lists/create';
import { handler as addToList } from '../../functions/lists/add_accounts';
import { handler as follow } from '../../functions/accounts/follow';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as block } from '../../functions/accounts/block';
import { handler as mute } from '../../functions/accounts/mute';
import { handler as endorse } from '../../functions/accounts/endorse';
import { handler as note } from '../../functions/accounts/note';
import { handler as relationships } from '../../functions/accounts/relationships';
import { handler as blockDomain } from '../../functions/domain_blocks/create';
import { handler as createFilter } from '../../functions/filters/v2_create';
import { handler as featureTag } from '../../functions/featured_tags/create';
import { handler as followTag } from '../../functions/tags/follow';
import { handler as saveMarkers } from '../../functions/markers/create';
import { handler as updatePolicy } from '../../functions/notifications/v2_policy_update';
import { handler as notificationsIndex } from '../../functions/notifications/index';
import { handler as requestsIndex } from '../../functions/notifications/requests_index';
import { handler as report } from '../../functions/reports/create';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as sweep } from '../../functions/sweeper/sweep';
import { getObject, putObject } from '../../lib/aws/s3';
import { config } from '../../lib/config';
import { sha256 } from '../../lib/crypto';
import { accountById, createLocalAccount, updateAccount, type Account } from '../../lib/db/accounts';
import { followEdge } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { createNotification } from '../../lib/db/notifications';
import { pushSubscriptionsOf, savePushSubscription } from '../../lib/db/push_subscriptions';
import { statusById } from '../../lib/db/statuses';
import * as gsi1 from '../../lib/db/gsi1';
import { getItem, query } from '../../lib/db/table';
import { tokensOfAccount } from '../../lib/db/tokens';
import { apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { runSuspensionWork, suspensionWorkLimits } from '../../lib/moderation/purge';
import { suspendAccount, SUSPENSION_RETENTION_DAYS } from '../../lib/moderation/suspension';
import { recordStrike } from '../../lib/moderation/strikes';
import { strikesOf } from '../../lib/db/strikes';
import { registerInlineWorker } from '../../lib/queue';
import { activity, collectDeliveries, receive } from '../support/activities';
import { aMediaAttachment, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const ok = async (_event: SQSEvent) => ({ batchItemFailures: [] });
registerInlineWorker('notify', ok);
registerInlineWorker('fanout', ok);
registerInlineWorker('cards', ok);
const delivered = collectDeliveries();

const DAY = 86_400_000;
const scheduledEvent = (at: number = Date.now()): ScheduledEvent => ({
  ...JSON.parse(readFileSync(new URL('../../events/schedule.json', import.meta.url), 'utf8')),
  time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
});
const afterRetention = () => Date.now() + (SUSPENSION_RETENTION_DAYS + 1) * DAY;

const reload = async (account: Account) => (await accountById(account.id))!;
const post = async (user: UserFixture, json: Record<string, unknown>) => {
  const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const onStatus = (handler: typeof favourite, action: string, user: UserFixture, id: string) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${action}`, pathParameters: { id }, token: user.token });
const partition = async (pk: string) =>
  (await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }, z.record(z.unknown()))).items;
const index = async (pk: string) =>
  (await query({ IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': pk } }, z.record(z.unknown()))).items;
const s3Gone = async (key: string) => (await getObject({ Bucket: config.mediaBucket, Key: key }).catch((e: unknown) => e)) instanceof Error;

const limits = { ...suspensionWorkLimits };
afterEach(() => Object.assign(suspensionWorkLimits, limits));

describe('the purge of a suspended local account', () => {
  it('removes its data over several sweeper runs, each taking one page and the next resuming, and leaves a tombstone that keeps the username', async () => {
    const [carol, other, fan] = await Promise.all([aUser(), aUser(), aUser()]);
    const remoteFan = await aRemoteAccount({ domain: 'purge-fans.example' });
    expect(await receive(activity(remoteFan.account as { uri: string }, 'Follow', apUrls.actor(carol.account.username)))).toBe('applied');
    expect((await call(follow, { method: 'POST', path: `/api/v1/accounts/${carol.account.id}/follow`, pathParameters: { id: carol.account.id }, token: fan.token })).status).toBe(200);
    expect((await call(follow, { method: 'POST', path: `/api/v1/accounts/${other.account.id}/follow`, pathParameters: { id: other.account.id }, token: carol.token })).status).toBe(200);

    // Statuses, one with an image whose files are in the bucket, one a reply to another account's status.
    const media = await aMediaAttachment(carol.account);
    for (const key of [media.fileKey!, media.previewKey!]) await putObject({ Bucket: config.mediaBucket, Key: key, Body: Buffer.from('png'), ContentType: 'image/png' });
    const withImage = await post(carol, { status: 'a picture', media_ids: [media.id] });
    const theirs = await post(other, { status: 'theirs' });
    const reply = await post(carol, { status: `@${other.account.username} a reply`, in_reply_to_id: theirs.id });
    for (let i = 0; i < 5; i++) await post(carol, { status: `status ${i}` });
    // Its reblog, favourite and bookmark of another's status, and another's reblog of one of its own.
    expect((await onStatus(reblog, 'reblog', carol, theirs.id)).status).toBe(200);
    expect((await onStatus(favourite, 'favourite', carol, theirs.id)).status).toBe(200);
    expect((await onStatus(bookmark, 'bookmark', carol, theirs.id)).status).toBe(200);
    expect((await onStatus(reblog, 'reblog', other, withImage.id)).status).toBe(200);
    // Its list (with the account it follows), and its place in the list of an account following it.
    const list = (await call(createList, { method: 'POST', path: '/api/v1/lists', json: { title: 'mine' }, token: carol.token })).body as { id: string };
    expect((await call(addToList, { method: 'POST', path: `/api/v1/lists/${list.id}/accounts`, pathParameters: { id: list.id }, json: { account_ids: [other.account.id] }, token: carol.token })).status).toBe(200);
    const fansList = (await call(createList, { method: 'POST', path: '/api/v1/lists', json: { title: 'fav people' }, token: fan.token })).body as { id: string };
    expect((await call(addToList, { method: 'POST', path: `/api/v1/lists/${fansList.id}/accounts`, pathParameters: { id: fansList.id }, json: { account_ids: [carol.account.id] }, token: fan.token })).status).toBe(200);
    // A notification received, a push subscription, an avatar.
    await createNotification({ id: newId(), type: 'favourite', accountId: carol.account.id, fromAccountId: other.account.id, statusId: reply.id, createdAt: new Date().toISOString() });
    const [token] = await tokensOfAccount(carol.account.id);
    expect(await savePushSubscription({ id: newId(), accountId: carol.account.id, tokenId: token!.id, endpoint: 'https://push.example.net/p', p256dh: 'k', auth: 'a', alerts: { follow: true, follow_request: false, favourite: true, reblog: true, mention: true, status: false, update: false, poll: true, 'admin.sign_up': false, 'admin.report': false }, policy: 'all', sealedToken: null, createdAt: new Date().toISOString() }, sha256(carol.token))).toBe(true);
    const avatarKey = `accounts/avatars/${carol.account.id}/original.png`;
    await putObject({ Bucket: config.mediaBucket, Key: avatarKey, Body: Buffer.from('png'), ContentType: 'image/png' });
    await updateAccount(carol.account.id, { avatarKey, displayName: 'Carol', note: 'hi' });

    await suspendAccount(await reload(carol.account));
    await sweep(scheduledEvent());
    // Within the retention nothing of it goes.
    await sweep(scheduledEvent(Date.now() + (SUSPENSION_RETENTION_DAYS - 1) * DAY));
    expect(await statusById(withImage.id)).toBeDefined();

    // Each run takes one page of 3, then stops: a run that stops anywhere is resumed by the next. The runs are the
    // sweeper's suspension work alone: a whole sweeper run at a moved clock also reads a day of poll and scheduled-
    // status minute buckets (about 2,900 queries), which made this loop take minutes and time out on a busy machine.
    Object.assign(suspensionWorkLimits, { budgetMs: 0, page: 3 });
    delivered.length = 0;
    let runs = 0;
    for (;;) {
      runs++;
      const suspensions = await runSuspensionWork(afterRetention());
      if (suspensions.done === 1) break;
      expect(suspensions.continues).toBe(1);
      expect(runs).toBeLessThan(60);
    }
    expect(runs).toBeGreaterThan(5);

    for (const id of [withImage.id, reply.id]) expect(await statusById(id)).toBeUndefined();
    expect(await partition(`ACCOUNT_STATUSES#${carol.account.id.padStart(20, '0')}`)).toEqual([]);
    expect(await getItem(keys.media(media.id), z.unknown())).toBeUndefined();
    expect(await s3Gone(media.fileKey!)).toBe(true);
    expect(await s3Gone(media.previewKey!)).toBe(true);
    expect(await s3Gone(avatarKey)).toBe(true);
    // What it did to others' statuses is undone: the counts are back.
    const theirsAfter = (await statusById(theirs.id))!;
    expect([theirsAfter.reblogsCount, theirsAfter.favouritesCount, theirsAfter.repliesCount]).toEqual([0, 0, 0]);
    // Another account's reblog of its status went with the status.
    expect((await reload(other.account)).statusesCount).toBe(1);
    expect(await getItem(keys.favourite(carol.account.id, theirs.id), z.unknown())).toBeUndefined();
    expect(await getItem(keys.bookmark(carol.account.id, theirs.id), z.unknown())).toBeUndefined();
    expect(await followEdge(fan.account.id, carol.account.id)).toBeUndefined();
    expect(await followEdge(carol.account.id, other.account.id)).toBeUndefined();
    expect([(await reload(fan.account)).followingCount, (await reload(other.account)).followersCount]).toEqual([0, 0]);
    expect(await partition(keys.listsPartition(carol.account.id))).toEqual([]);
    expect(await partition(keys.listMembersPartition(fansList.id))).toEqual([]);
    expect(await partition(keys.notificationsPartition(carol.account.id))).toEqual([]);
    expect(await tokensOfAccount(carol.account.id)).toEqual([]);
    expect(await pushSubscriptionsOf(carol.account.id)).toEqual([]);
    expect(await partition(keys.severedFollowsPartition(carol.account.id))).toEqual([]);
    expect((await call(verifyCredentials, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token: carol.token })).status).toBe(401);

    // The tombstone: suspended, blank, no login; its username cannot be registered again.
    const tombstone = await reload(carol.account);
    expect(tombstone).toMatchObject({ suspensionOrigin: 'local', displayName: '', note: '', avatarKey: null, statusesCount: 0, followersCount: 0, followingCount: 0, disabled: true });
    expect(tombstone.suspendedAt).not.toBeNull();
    expect(tombstone.passwordHash).toBeUndefined();
    const again = await createLocalAccount({ id: newId(), username: carol.account.username, email: 'someone.else@example.com', passwordHash: 'x', confirmedAt: null, approved: true });
    expect(again).toMatchObject({ ok: false, taken: 'username' });
    // The servers told of the suspension hear the actor is gone.
    expect(delivered.filter((d) => d.activity.type === 'Delete').map((d) => [d.inbox, d.activity.object])).toEqual([['https://purge-fans.example/inbox', apUrls.actor(carol.account.username)]]);
    // Nothing left to do.
    expect(await partition(keys.SUSPENSION_WORK)).toEqual([]);
    expect((await sweep(scheduledEvent(afterRetention()))).suspensions).toEqual({ done: 0, continues: 0, dropped: 0 });
  }, 240_000);

  it('removes what others hold of it and what it kept of its own: notifications it caused, requests, blocks and mutes both ways, filters, tags, markers, notes, conversations, scheduled statuses, uploads; reports stay', async () => {
    // The real fan-out and notify workers, for this case: the notifications it causes are written as in production.
    registerInlineWorker('notify', notifyWorker);
    registerInlineWorker('fanout', fanoutWorker);
    try {
      const [dora, bob, cid, eve, fay, gus, stranger] = await Promise.all([aUser(), aUser(), aUser(), aUser(), aUser(), aUser(), aUser()]);
      const id = dora.account.id;
      const onAccount = (handler: typeof block, action: string, user: UserFixture, target: string, json?: Record<string, unknown>) =>
        call(handler, { method: 'POST', path: `/api/v1/accounts/${target}/${action}`, pathParameters: { id: target }, token: user.token, ...(json ? { json } : {}) });
      const relationshipOf = async (user: UserFixture) => {
        const res = await call(relationships, { method: 'GET', path: '/api/v1/accounts/relationships', query: { 'id[]': [id], with_suspended: 'true' }, token: user.token });
        expect(res.status).toBe(200);
        return (res.body as Array<Record<string, unknown>>)[0];
      };
      const notificationsOf = async (user: UserFixture) => {
        const res = await call(notificationsIndex, { method: 'GET', path: '/api/v1/notifications', token: user.token });
        expect(res.status).toBe(200);
        return res.body as Array<{ type: string; account: { id: string } }>;
      };
      const requestsOf = async (user: UserFixture) => {
        const res = await call(requestsIndex, { method: 'GET', path: '/api/v1/notifications/requests', token: user.token });
        expect(res.status).toBe(200);
        return res.body as Array<{ account: { id: string } }>;
      };
      const setPolicy = (user: UserFixture) =>
        call(updatePolicy, { method: 'PATCH', path: '/api/v2/notifications/policy', json: { for_not_following: 'filter' }, token: user.token });

      // Notifications it causes: a follow and a favourite to bob, a mention cid's policy files as a request.
      expect((await onAccount(follow, 'follow', dora, bob.account.id)).status).toBe(200);
      const bobs = await post(bob, { status: 'bob speaks' });
      expect((await onStatus(favourite, 'favourite', dora, bobs.id)).status).toBe(200);
      expect((await setPolicy(cid)).status).toBe(200);
      await post(dora, { status: `@${cid.account.username} hello` });
      // Its own policy, and a request it received from a stranger's mention.
      expect((await setPolicy(dora)).status).toBe(200);
      await post(stranger, { status: `@${dora.account.username} hi there` });
      // Blocks and mutes both ways, a domain block.
      expect((await onAccount(block, 'block', dora, eve.account.id)).status).toBe(200);
      expect((await onAccount(block, 'block', fay, id)).status).toBe(200);
      expect((await onAccount(mute, 'mute', fay, id)).status).toBe(200);
      expect((await onAccount(mute, 'mute', dora, gus.account.id)).status).toBe(200);
      expect((await call(blockDomain, { method: 'POST', path: '/api/v1/domain_blocks', json: { domain: 'purged-spam.example' }, token: dora.token })).status).toBe(200);
      // A filter with a keyword, a featured and a followed tag, an endorsement, a marker, a note.
      expect((await call(createFilter, { method: 'POST', path: '/api/v2/filters', json: { title: 'no spoilers', context: ['home'], keywords_attributes: [{ keyword: 'spoiler' }] }, token: dora.token })).status).toBe(200);
      expect((await call(featureTag, { method: 'POST', path: '/api/v1/featured_tags', json: { name: 'purgetag' }, token: dora.token })).status).toBe(200);
      expect((await call(followTag, { method: 'POST', path: '/api/v1/tags/purgetag/follow', pathParameters: { name: 'purgetag' }, token: dora.token })).status).toBe(200);
      expect((await onAccount(endorse, 'endorse', dora, bob.account.id)).status).toBe(200);
      expect((await call(saveMarkers, { method: 'POST', path: '/api/v1/markers', json: { home: { last_read_id: bobs.id } }, token: dora.token })).status).toBe(200);
      expect((await onAccount(note, 'note', dora, bob.account.id, { comment: 'met at the fair' })).status).toBe(200);
      // A direct conversation, a scheduled status holding an image, an upload never posted (files in the bucket).
      await post(dora, { status: `@${bob.account.username} just us`, visibility: 'direct' });
      const [reserved, unposted] = [await aMediaAttachment(dora.account), await aMediaAttachment(dora.account)];
      for (const m of [reserved, unposted]) for (const key of [m.fileKey!, m.previewKey!]) await putObject({ Bucket: config.mediaBucket, Key: key, Body: Buffer.from('png'), ContentType: 'image/png' });
      const later = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'later', media_ids: [reserved.id], scheduled_at: new Date(Date.now() + 3 * 3600_000).toISOString() }, token: dora.token });
      expect(later.status).toBe(200);
      // A report about it, which moderators keep.
      const filed = await call(report, { method: 'POST', path: '/api/v1/reports', json: { account_id: id, comment: 'spam' }, token: bob.token });
      expect(filed.status).toBe(200);

      // Before: each is there, as others see it and in the table.
      expect((await notificationsOf(bob)).filter((n) => n.account.id === id).map((n) => n.type).sort()).toEqual(['favourite', 'follow', 'mention']);
      expect((await requestsOf(cid)).map((r) => r.account.id)).toEqual([id]);
      expect((await requestsOf(dora)).map((r) => r.account.id)).toEqual([stranger.account.id]);
      expect(await relationshipOf(eve)).toMatchObject({ blocked_by: true });
      expect(await relationshipOf(fay)).toMatchObject({ blocking: true, muting: true });
      expect(await index(gsi1.notificationsSentPartition(id))).toHaveLength(4);
      const ownPartitions = [
        keys.blockingPartition(id),
        keys.mutingPartition(id),
        keys.filtersPartition(id),
        keys.markerPartition(id),
        keys.accountNotesPartition(id),
        keys.featuredTagsPartition(id),
        keys.tagFollowsPartition(id),
        keys.conversationsPartition(id),
        keys.scheduledPartition(id),
      ];
      for (const pk of ownPartitions) expect([pk, (await partition(pk)).length > 0]).toEqual([pk, true]);
      expect(await getItem(keys.tagFollower('purgetag', id), z.unknown())).toBeDefined();
      expect(await getItem(keys.notificationPolicy(id), z.unknown())).toBeDefined();

      // The strike of its suspension, which stays as Mastodon keeps account_warnings.
      const strike = await recordStrike(bob.account, await reload(dora.account), { action: 'suspend', text: 'spam', reportId: (filed.body as { id: string }).id, statusIds: [], notify: false });
      await suspendAccount(await reload(dora.account));
      await sweep(scheduledEvent());
      // Pages of 2, one per run: the steps span runs, each resumed by the next.
      Object.assign(suspensionWorkLimits, { budgetMs: 0, page: 2 });
      let runs = 0;
      for (;;) {
        runs++;
        // The suspension work alone, as in the first test (a whole run would read a day of minute buckets each time).
        const suspensions = await runSuspensionWork(afterRetention());
        if (suspensions.done === 1) break;
        expect(suspensions.continues).toBe(1);
        expect(runs).toBeLessThan(120);
      }

      // After: nothing of it, as others see it ...
      expect((await notificationsOf(bob)).filter((n) => n.account.id === id)).toEqual([]);
      expect(await requestsOf(cid)).toEqual([]);
      expect(await relationshipOf(eve)).toMatchObject({ blocked_by: false });
      expect(await relationshipOf(fay)).toMatchObject({ blocking: false, muting: false });
      // ... and in the table.
      expect(await index(gsi1.notificationsSentPartition(id))).toEqual([]);
      for (const user of [bob, cid]) expect((await partition(keys.notificationsPartition(user.account.id))).filter((n) => n.fromAccountId === id)).toEqual([]);
      expect(await getItem(keys.notificationRequest(cid.account.id, id), z.unknown())).toBeUndefined();
      expect(await getItem(keys.notificationRequest(id, stranger.account.id), z.unknown())).toBeUndefined();
      expect(await getItem(keys.notificationPolicy(id), z.unknown())).toBeUndefined();
      expect(await getItem(keys.block(fay.account.id, id), z.unknown())).toBeUndefined();
      expect(await getItem(keys.mute(fay.account.id, id), z.unknown())).toBeUndefined();
      expect(await index(gsi1.blockedByPartition(id))).toEqual([]);
      expect(await index(gsi1.mutedByPartition(id))).toEqual([]);
      expect(await index(gsi1.blockedByPartition(eve.account.id))).toEqual([]);
      for (const pk of [...ownPartitions, keys.endorsementsPartition(id)]) expect([pk, await partition(pk)]).toEqual([pk, []]);
      expect(await getItem(keys.irreversibleFilters(id), z.unknown())).toBeUndefined();
      expect(await getItem(keys.featuredTagName(id, 'purgetag'), z.unknown())).toBeUndefined();
      expect(await getItem(keys.tagFollower('purgetag', id), z.unknown())).toBeUndefined();
      expect((await partition(keys.scheduledDuePartition())).filter((d) => d.accountId === id)).toEqual([]);
      expect(await index(gsi1.uploadsPartition(id))).toEqual([]);
      for (const m of [reserved, unposted]) {
        expect(await getItem(keys.media(m.id), z.unknown())).toBeUndefined();
        for (const key of [m.fileKey!, m.previewKey!]) expect(await s3Gone(key)).toBe(true);
      }
      // Its strike and the report about it stay for the moderators (Mastodon keeps both when it keeps the account).
      expect((await strikesOf(id)).map((s) => s.id)).toEqual([strike.id]);
      expect(await getItem(keys.report((filed.body as { id: string }).id), z.unknown())).toBeDefined();
      // Others' own data is theirs: bob's status and the stranger's request-causing mention stay.
      expect(await statusById(bobs.id)).toBeDefined();
    } finally {
      registerInlineWorker('notify', ok);
      registerInlineWorker('fanout', ok);
    }
  }, 240_000);

  it('never starts for an account whose suspension was lifted, even if its work was left behind', async () => {
    const dave = await aUser();
    const status = await post(dave, { status: 'still here' });
    await suspendAccount(await reload(dave.account));
    // The flag lifted without the work being called off (as a lost write would leave it).
    await updateAccount(dave.account.id, { suspendedAt: null, suspensionOrigin: null });
    const { suspensions } = await sweep(scheduledEvent(afterRetention()));
    expect(suspensions.dropped).toBe(2);
    expect(await statusById(status.id)).toBeDefined();
    expect((await reload(dave.account)).passwordHash).toBeDefined();
    expect(await partition(keys.SUSPENSION_WORK)).toEqual([]);
  });

  it('a run that took the work and died holds it until its lease runs out; then the next run goes on', async () => {
    const erin = await aUser();
    await post(erin, { status: 'one' });
    await suspendAccount(await reload(erin.account));
    const [graph] = (await partition(keys.SUSPENSION_WORK)).filter((w) => String(w.SK).startsWith('GRAPH#'));
    const { leaseSuspensionWork } = await import('../../lib/db/suspensions');
    const { suspensionWorkItem } = await import('../../lib/db/suspensions');
    expect(await leaseSuspensionWork(suspensionWorkItem.parse(graph), 'dead-run', Date.now(), 60_000)).toBe(true);
    expect((await sweep(scheduledEvent())).suspensions.done).toBe(0);
    expect((await sweep(scheduledEvent(Date.now() + 120_000))).suspensions.done).toBeGreaterThanOrEqual(1);
  });
});
