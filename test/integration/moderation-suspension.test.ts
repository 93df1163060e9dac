// What a suspension does (lib/moderation/suspension.ts, the sweeper's lib/moderation/purge.ts), through the paths
// that drive it: suspendAccount / unsuspendAccount as the admin API calls them, the sweeper's handler for the
// background work, and the inbox worker for what remote servers send. Deliveries are collected instead of sent.
import { readFileSync } from 'node:fs';
import type { ScheduledEvent, SQSEvent } from 'aws-lambda';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as sweep } from '../../functions/sweeper/sweep';
import { accountById, type Account } from '../../lib/db/accounts';
import { createFollow, followEdge } from '../../lib/db/follows';
import { newId } from '../../lib/ids';
import { followerInboxesOf } from '../../lib/db/follower_inboxes';
import * as keys from '../../lib/db/keys';
import { remoteStatusIdByUri } from '../../lib/db/remote';
import { severedFollowsPage } from '../../lib/db/suspensions';
import { getItem, queryAll } from '../../lib/db/table';
import { apUrls } from '../../lib/federation/urls';
import { remoteRemovalLimits } from '../../lib/moderation/remote_removal';
import { withoutPins } from '../../lib/federation/actor_store';
import { saveActorDocument } from '../../lib/federation/actors';
import { suspendAccount, unsuspendAccount, SUSPENSION_RETENTION_DAYS } from '../../lib/moderation/suspension';
import { registerInlineWorker } from '../../lib/queue';
import { z } from 'zod';
import { activity, aNote, collectDeliveries, receive } from '../support/activities';
import { aPostedStatus, aRemoteAccount, aUser } from '../support/factories';
import { call } from '../support/http';
import { connectThroughHandler, useManagementApi } from '../support/management-api';
import { aRemoteActor, remoteServer } from '../support/remote-server';

const ok = async (_event: SQSEvent) => ({ batchItemFailures: [] });
registerInlineWorker('notify', ok);
registerInlineWorker('fanout', ok);
registerInlineWorker('remoteMedia', ok);
// A long removal continues in another run of the activity: collected, run again by the test.
registerInlineWorker('inbox', ok);
const delivered = collectDeliveries();

// The Management API stand-in: which WebSocket connections we were told to close.
const closed: string[] = [];
useManagementApi((req, res) => {
  if (req.method === 'DELETE') {
    closed.push(req.connectionId ?? '');
    return res.writeHead(204).end();
  }
  res.writeHead(200).end();
});

const DAY = 86_400_000;
const scheduledEvent = (at: number = Date.now()): ScheduledEvent => ({
  ...JSON.parse(readFileSync(new URL('../../events/schedule.json', import.meta.url), 'utf8')),
  time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
});

const reload = async (account: Account) => (await accountById(account.id))!;
const sent = (type: string) => delivered.filter((d) => d.activity.type === type);
const objectType = (d: { activity: Record<string, unknown> }) => (d.activity.object as Record<string, unknown> | undefined)?.type;
const workItems = () => queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.SUSPENSION_WORK } }, z.object({ SK: z.string(), accountId: z.string() }));

/** `follower` follows `followed`, counters and all (as the follow endpoint and an Accept write it). */
const aFollow = (follower: Account, followed: Account) =>
  createFollow({ id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });

/** A remote account following `local`, as its Follow arrives (the edge counted under its server's inbox). */
async function remoteFollowerOf(local: Account, domain: string) {
  const remote = await aRemoteAccount({ domain });
  expect(await receive(activity(remote.account as { uri: string }, 'Follow', apUrls.actor(local.username)))).toBe('applied');
  return remote.account;
}

describe('suspending a local account', () => {
  it('refuses its token, closes its stream, tells its followers\' servers (Update with suspended: true) and, in the sweeper, severs its follows both ways', async () => {
    const [alice, localFan, localFriend] = await Promise.all([aUser(), aUser(), aUser()]);
    const remoteFan = await remoteFollowerOf(alice.account, 'fans.example');
    await aFollow(localFan.account, alice.account);
    await aFollow(alice.account, localFriend.account);
    const remoteFriend = (await aRemoteAccount({ domain: 'friends.example' })).account;
    await aFollow(alice.account, remoteFriend);
    const stream = await connectThroughHandler(alice.token, { stream: 'user' });
    delivered.length = 0;

    const suspended = await suspendAccount(await reload(alice.account));

    expect(suspended.suspendedAt).not.toBeNull();
    expect(suspended.suspensionOrigin).toBe('local');
    expect((await call(verifyCredentials, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token: alice.token })).status).toBe(403);
    expect(closed).toContain(stream);
    const updates = sent('Update');
    expect(updates.map((d) => d.inbox)).toEqual(['https://fans.example/inbox']);
    expect(updates[0]!.activity.object).toMatchObject({ id: apUrls.actor(alice.account.username), type: 'Person', suspended: true });
    // The request did not sever anything: that is the sweeper's work.
    expect(await followEdge(localFan.account.id, alice.account.id)).toBeDefined();

    delivered.length = 0;
    const run = await sweep(scheduledEvent());
    expect(run.suspensions.done).toBe(1);

    expect(await followEdge(remoteFan.id, alice.account.id)).toBeUndefined();
    expect(await followEdge(localFan.account.id, alice.account.id)).toBeUndefined();
    expect(await followEdge(alice.account.id, localFriend.account.id)).toBeUndefined();
    expect(await followEdge(alice.account.id, remoteFriend.id)).toBeUndefined();
    const after = await reload(alice.account);
    expect([after.followersCount, after.followingCount]).toEqual([0, 0]);
    expect((await reload(localFan.account)).followingCount).toBe(0);
    expect((await reload(localFriend.account)).followersCount).toBe(0);
    expect((await followerInboxesOf(alice.account.id)).length).toBe(0);
    // The remote follower's server hears a Reject of its Follow; the remote account it followed, the Undo of ours.
    expect(sent('Reject').map((d) => [d.inbox, objectType(d)])).toEqual([[remoteFan.inboxUrl, 'Follow']]);
    expect(sent('Undo').map((d) => [d.inbox, objectType(d)])).toEqual([[remoteFriend.inboxUrl, 'Follow']]);
    // What unsuspending restores is kept: the follows with local accounts and its follow of the remote account.
    const kept = await severedFollowsPage(alice.account.id, 10);
    expect(kept.map((f) => `${f.direction}:${f.direction === 'follower' ? f.followerId : f.followedId}`).sort()).toEqual(
      [`follower:${localFan.account.id}`, `following:${localFriend.account.id}`, `following:${remoteFriend.id}`].sort(),
    );
    // Only the purge's work is left, due in 30 days.
    const left = await workItems();
    expect(left.map((w) => w.SK.split('#')[0])).toEqual(['PURGE']);
    expect(Date.parse(left[0]!.SK.split('#')[1]!) - Date.parse(after.suspendedAt!)).toBe(SUSPENSION_RETENTION_DAYS * DAY);
  });

  it('is idempotent: suspending again keeps the start, sends nothing and schedules nothing new', async () => {
    const alice = await aUser();
    await remoteFollowerOf(alice.account, 'again.example');
    const first = await suspendAccount(await reload(alice.account));
    delivered.length = 0;
    const second = await suspendAccount(await reload(alice.account));
    expect(second.suspendedAt).toBe(first.suspendedAt);
    expect(delivered).toEqual([]);
    expect((await workItems()).filter((w) => w.accountId === alice.account.id)).toHaveLength(2);
  });
});

describe('unsuspending within the retention', () => {
  it('lifts the flag, tells the same servers again, restores the follows it kept (asking the remote account again) and calls the purge off', async () => {
    const [bob, localFan, localFriend] = await Promise.all([aUser(), aUser(), aUser()]);
    await remoteFollowerOf(bob.account, 'fans2.example');
    await aFollow(localFan.account, bob.account);
    await aFollow(bob.account, localFriend.account);
    const remoteFriend = (await aRemoteAccount({ domain: 'friends2.example' })).account;
    await aFollow(bob.account, remoteFriend);
    const status = await aPostedStatus(bob.account);
    await suspendAccount(await reload(bob.account));
    await sweep(scheduledEvent());
    delivered.length = 0;

    const lifted = await unsuspendAccount(await reload(bob.account));
    expect(lifted.suspendedAt).toBeNull();
    expect(lifted.suspensionOrigin).toBeNull();
    expect((await call(verifyCredentials, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token: bob.token })).status).toBe(200);
    // The servers told of the suspension hear it is over, though the follower there is gone.
    const updates = sent('Update');
    expect(updates.map((d) => d.inbox)).toEqual(['https://fans2.example/inbox']);
    expect(updates[0]!.activity.object).toMatchObject({ suspended: false });
    expect(await unsuspendAccount(await reload(bob.account))).toMatchObject({ suspendedAt: null });

    delivered.length = 0;
    await sweep(scheduledEvent());
    expect(await followEdge(localFan.account.id, bob.account.id)).toBeDefined();
    expect(await followEdge(bob.account.id, localFriend.account.id)).toBeDefined();
    const after = await reload(bob.account);
    expect([after.followersCount, after.followingCount]).toEqual([1, 1]);
    // The remote account it followed is asked again: a new Follow, pending until its server accepts.
    expect(sent('Follow').map((d) => d.inbox)).toEqual([remoteFriend.inboxUrl]);
    expect(await severedFollowsPage(bob.account.id, 10)).toEqual([]);
    expect((await workItems()).filter((w) => w.accountId === bob.account.id)).toEqual([]);

    // Past the 30 days nothing is purged: the work was called off.
    await sweep(scheduledEvent(Date.now() + (SUSPENSION_RETENTION_DAYS + 1) * DAY));
    expect(await getItem(keys.status(status.id), z.object({ id: z.string() }))).toBeDefined();
  });
});

describe('remote accounts', () => {
  it('an Update of the actor with suspended: true suspends it (origin remote); its activities are then acknowledged and change nothing; suspended: false lifts it', async () => {
    const { account: remote } = await aRemoteAccount({ domain: 'susp.example' });
    const person = (suspended: boolean) => ({
      id: remote.uri,
      type: 'Person',
      preferredUsername: remote.username,
      inbox: remote.inboxUrl,
      publicKey: { id: remote.publicKeyId, owner: remote.uri, publicKeyPem: remote.publicKeyPem },
      suspended,
    });
    expect(await receive(activity(remote as { uri: string }, 'Update', person(true)))).toBe('applied');
    const suspended = await reload(remote);
    expect(suspended.suspendedAt).not.toBeNull();
    expect(suspended.suspensionOrigin).toBe('remote');
    // Its own server does the rest: nothing to sever or purge here.
    expect((await workItems()).filter((w) => w.accountId === remote.id)).toEqual([]);

    const note = aNote(remote as { uri: string; followersUrl: string });
    expect(await receive(activity(remote as { uri: string }, 'Create', note))).toBe('ignored');
    expect(await remoteStatusIdByUri(note.id)).toBeUndefined();

    expect(await receive(activity(remote as { uri: string }, 'Update', person(false)))).toBe('applied');
    expect((await reload(remote)).suspendedAt).toBeNull();
    expect(await receive(activity(remote as { uri: string }, 'Create', aNote(remote as { uri: string; followersUrl: string })))).toBe('applied');
  });

  it('an activity that overtook the Update lifting its suspension: the actor is read again, and the activity applied if its server lifted it', async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    const peer = await remoteServer();
    try {
      const served = (suspended: boolean) => aRemoteActor(peer.origin, 'overtaken', { suspended }).doc;
      const remote = (await saveActorDocument(served(false)))!;
      const actor = remote as { uri: string; followersUrl: string };
      expect(await receive(activity(actor, 'Update', served(true)))).toBe('applied');
      expect(await reload(remote)).toMatchObject({ suspensionOrigin: 'remote' });

      // Still suspended there: read again, and the activity changes nothing.
      peer.route('GET', '/users/overtaken', { body: served(true) });
      const first = aNote(actor);
      expect(await receive(activity(actor, 'Create', first))).toBe('ignored');
      expect(peer.received.filter((r) => r.method === 'GET')).toHaveLength(1);
      expect(await remoteStatusIdByUri(first.id)).toBeUndefined();

      // Lifted there, the Update still on its way: this activity is applied, and the suspension here is lifted.
      peer.route('GET', '/users/overtaken', { body: served(false) });
      const second = aNote(actor);
      expect(await receive(activity(actor, 'Create', second))).toBe('applied');
      expect((await reload(remote)).suspendedAt).toBeNull();
      expect(await remoteStatusIdByUri(second.id)).toBeDefined();
    } finally {
      process.env.STAGE = 'test';
      delete process.env.FEDERATION_ALLOW_PRIVATE;
      await peer.close();
    }
  });

  it('a Delete of the actor suspends it (origin remote) from its first round, then removes it', async () => {
    const { account: remote } = await aRemoteAccount({ domain: 'gone.example' });
    const local = await aUser();
    await aFollow(local.account, remote);
    await aPostedStatus(remote);
    await aPostedStatus(remote);
    const deletion = activity(remote as { uri: string }, 'Delete', remote.uri);
    const limits = { ...remoteRemovalLimits };
    remoteRemovalLimits.statusesPerRun = 1;
    try {
      expect(await receive(deletion)).toBe('continued');
    } finally {
      Object.assign(remoteRemovalLimits, limits);
    }
    expect(await reload(remote)).toMatchObject({ suspensionOrigin: 'remote' });
    expect((await reload(remote)).suspendedAt).not.toBeNull();
    expect(await receive(deletion)).toBe('applied');
    expect(await accountById(remote.id)).toBeUndefined();
    expect(await followEdge(local.account.id, remote.id)).toBeUndefined();
    expect((await reload(local.account)).followingCount).toBe(0);
  });

  it('suspended by our moderators: its follows of our accounts end with a Reject, our follows of it stay until the purge, nothing of it is fetched, and only our moderators lift it', async () => {
    const { account: remote } = await aRemoteAccount({ domain: 'bad.example' });
    const [target, fan] = await Promise.all([aUser(), aUser()]);
    expect(await receive(activity(remote as { uri: string }, 'Follow', apUrls.actor(target.account.username)))).toBe('applied');
    await aFollow(fan.account, remote);

    await suspendAccount(await reload(remote));
    // Remote accounts get no Update from us.
    expect(sent('Update')).toEqual([]);
    delivered.length = 0;
    await sweep(scheduledEvent());
    expect(await followEdge(remote.id, target.account.id)).toBeUndefined();
    expect((await reload(target.account)).followersCount).toBe(0);
    expect(sent('Reject').map((d) => [d.inbox, (d.activity.actor as string), objectType(d)])).toEqual([
      [remote.inboxUrl, apUrls.actor(target.account.username), 'Follow'],
    ]);
    expect(await followEdge(fan.account.id, remote.id)).toBeDefined();

    // Stale or not, a refresh fetches nothing (a fetch would fail: bad.example does not resolve).
    const stored = await withoutPins.accountByActorUri(remote.uri!, { refresh: true });
    expect(stored?.id).toBe(remote.id);

    // Its Update with suspended: false does not lift our suspension.
    expect(await receive(activity(remote as { uri: string }, 'Update', { id: remote.uri, type: 'Person', preferredUsername: remote.username, inbox: remote.inboxUrl, publicKey: { id: remote.publicKeyId, owner: remote.uri, publicKeyPem: remote.publicKeyPem } }))).toBe('applied');
    expect((await reload(remote)).suspensionOrigin).toBe('local');
    // Its Like is acknowledged and changes nothing.
    const status = await aPostedStatus(target.account);
    expect(await receive(activity(remote as { uri: string }, 'Like', apUrls.status(target.account.username, status.id)))).toBe('ignored');

    // The purge, 30 days on, undoes our follow of it (Undo sent by the local follower).
    delivered.length = 0;
    await sweep(scheduledEvent(Date.now() + (SUSPENSION_RETENTION_DAYS + 1) * DAY));
    expect(await followEdge(fan.account.id, remote.id)).toBeUndefined();
    expect((await reload(fan.account)).followingCount).toBe(0);
    expect(sent('Undo').map((d) => [d.inbox, d.activity.actor, objectType(d)])).toEqual([[remote.inboxUrl, apUrls.actor(fan.account.username), 'Follow']]);
    const tombstone = await reload(remote);
    expect(tombstone.suspendedAt).not.toBeNull();
  });
});
