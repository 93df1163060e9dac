// Blocks across servers: what a local block of a remote account sends (Undo and
// Reject of the follows it severs, then Block; Undo(Block) on unblocking), and
// what a received Block and Undo(Block) do (lib/inbox/block.ts,
// lib/graph/remote_blocks.ts): the follows end both ways without a word sent
// back, the blocker is hidden from the blocked as Mastodon hides it, and
// `blocked_by` shows. Each refused input (a Block of an account not ours, an
// Undo by someone else) is paired with the input that works.
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as unblockHandler } from '../../functions/accounts/unblock';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import type { Account } from '../../lib/db/accounts';
import { blockAndMuteSets } from '../../lib/db/blocks';
import { followerInboxesOf } from '../../lib/db/follower_inboxes';
import { createFollow, createFollowRequest, followEdge } from '../../lib/db/follows';
import { homeEntryRecord } from '../../lib/db/timelines';
import { putItem } from '../../lib/db/table';
import { apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { activity, collectDeliveries, receive, type Doc } from '../support/activities';
import { aFollow, aPostedStatus, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const delivered = collectDeliveries();
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));

type Remote = Account & { uri: string; inboxUrl: string };
const aRemote = async (domain = 'beta.example'): Promise<Remote> => (await aRemoteAccount({ domain, keyless: true })).account as Remote;

/** `follower` (remote) follows `local`, as the inbox worker records an accepted Follow (counted under its shared inbox). */
async function aRemoteFollower(follower: Account, local: Account): Promise<void> {
  const edge = { id: newId(), followerId: follower.id, followedId: local.id, showReblogs: true, notify: false, createdAt: new Date().toISOString(), activityId: `${follower.uri}#follows/${newId()}` };
  expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl ?? follower.inboxUrl ?? undefined })).toBe(true);
}

const blockOf = (blocker: Remote, target: string) => activity(blocker, 'Block', target);
const undoOf = (actor: Remote, block: Doc) => activity(actor, 'Undo', block);

const relationship = async (viewer: UserFixture, other: Account) =>
  (await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id: other.id }, token: viewer.token })).body[0] as Record<string, unknown>;
const homeIds = async (user: UserFixture) =>
  ((await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token })).body as { id: string }[]).map((s) => s.id);
const inboxCounts = async (account: Account) => Object.fromEntries((await followerInboxesOf(account.id)).map((f) => [f.inbox, f.followers]));
const blockedBy = async (account: Account) => (await blockAndMuteSets(account.id)).blockedBy.map((b) => b.accountId);

describe('a local block of a remote account', () => {
  const block = (id: string, token: string) => call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${id}/block`, pathParameters: { id }, token });
  const unblock = (id: string, token: string) => call(unblockHandler, { method: 'POST', path: `/api/v1/accounts/${id}/unblock`, pathParameters: { id }, token });

  it('sends Undo(Follow), Reject(Follow), then Block to its inbox; unblocking sends the Undo of that same Block', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    await aRemoteFollower(bob, alice.account);
    await aFollow(alice.account, bob);

    const res = await block(bob.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ blocking: true, following: false, followed_by: false });
    expect(delivered.map((d) => [d.inbox, d.activity.type])).toEqual([
      [bob.inboxUrl, 'Undo'],
      [bob.inboxUrl, 'Reject'],
      [bob.inboxUrl, 'Block'],
    ]);
    const sent = delivered[2]!;
    expect(sent.signer).toEqual({ accountId: alice.account.id });
    expect(sent.activity).toMatchObject({ type: 'Block', actor: apUrls.actor(alice.account.username), object: bob.uri });

    delivered.length = 0;
    expect((await unblock(bob.id, alice.token)).body).toMatchObject({ blocking: false });
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ inbox: bob.inboxUrl, signer: { accountId: alice.account.id } });
    expect(delivered[0]!.activity).toMatchObject({
      type: 'Undo',
      actor: apUrls.actor(alice.account.username),
      object: { id: sent.activity.id, type: 'Block', actor: apUrls.actor(alice.account.username), object: bob.uri },
    });

    // Unblocking again has no block to undo: nothing is sent.
    delivered.length = 0;
    await unblock(bob.id, alice.token);
    expect(delivered).toEqual([]);
  });

  it('sends only the Block when no follow stood between them; a Block of a local account sends nothing', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    await block(bob.id, alice.token);
    expect(delivered.map((d) => d.activity.type)).toEqual(['Block']);
    expect(String(delivered[0]!.activity.id)).toMatch(new RegExp(`^${apUrls.actor(alice.account.username)}#blocks/\\d+$`));

    delivered.length = 0;
    const carol = await aUser();
    expect((await block(carol.account.id, alice.token)).body).toMatchObject({ blocking: true });
    await unblock(carol.account.id, alice.token);
    expect(delivered).toEqual([]);
  });
});

describe('a received Block', () => {
  it('ends the follows both ways quietly, hides the blocker from the blocked, and shows blocked_by', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const other = await aRemote();
    await aRemoteFollower(bob, alice.account);
    await aRemoteFollower(other, alice.account);
    await aFollow(alice.account, bob);
    // Bob's status already in Alice's home, as the inbox left it when she followed him.
    const bobs = await aPostedStatus(bob, { uri: `${bob.uri}/statuses/${newId()}` });
    await putItem(homeEntryRecord(alice.account.id, bobs, false));
    expect(await homeIds(alice)).toContain(bobs.id);
    expect(await inboxCounts(alice.account)).toEqual({ 'https://beta.example/inbox': 2 });

    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');

    expect(await followEdge(bob.id, alice.account.id)).toBeUndefined();
    expect(await followEdge(alice.account.id, bob.id)).toBeUndefined();
    // The other follower on Bob's server still counts: the server keeps getting Alice's posts for it.
    expect(await inboxCounts(alice.account)).toEqual({ 'https://beta.example/inbox': 1 });
    expect(await relationship(alice, bob)).toMatchObject({ blocked_by: true, blocking: false, following: false, followed_by: false });
    expect(await homeIds(alice)).not.toContain(bobs.id);
    // Nothing goes back: Bob's server ended its side itself.
    expect(delivered).toEqual([]);
  });

  it('ends a pending request either way too', async () => {
    const alice = await aUser({ locked: true });
    const bob = await aRemote();
    const request = { id: newId(), accountId: bob.id, targetAccountId: alice.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
    expect(await createFollowRequest(request)).toBe(true);
    expect(await relationship(alice, bob)).toMatchObject({ requested_by: true });
    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');
    expect(await relationship(alice, bob)).toMatchObject({ requested_by: false, blocked_by: true });
    expect(delivered).toEqual([]);
  });

  it('is ignored, writing nothing, when its object is not one of our accounts; the same Block of ours applies', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const carol = await aRemote('gamma.example');
    await aRemoteFollower(bob, alice.account);
    for (const object of [carol.uri, apUrls.actor('nobody_here'), `${apUrls.actor(alice.account.username)}/statuses/1`, { id: carol.uri }]) {
      expect(await receive(blockOf(bob, object as string))).toBe('ignored');
    }
    expect(await followEdge(bob.id, alice.account.id)).toBeDefined();
    expect(await blockedBy(alice.account)).toEqual([]);
    expect((await blockAndMuteSets(bob.id)).blocking).toEqual([]);

    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');
    expect(await blockedBy(alice.account)).toEqual([bob.id]);
  });

  it('is stored once: a redelivery replays, and a second Block leaves the one edge', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const first = blockOf(bob, apUrls.actor(alice.account.username));
    expect(await receive(first)).toBe('applied');
    expect(await receive(first)).toBe('replayed');
    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');
    expect(await blockedBy(alice.account)).toEqual([bob.id]);
  });

  it('keeps the blocker’s notifications from the blocked account', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const carol = await aRemote();
    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');
    // A direct mention from each: Carol's notifies Alice, Bob's (he blocks her) does not.
    const aliceUri = apUrls.actor(alice.account.username);
    const mention = (from: Remote) => ({
      id: `${from.uri}/statuses/${randomUUID()}`,
      type: 'Note',
      attributedTo: from.uri,
      to: [aliceUri],
      content: '<p>@alice hello</p>',
      tag: [{ type: 'Mention', href: aliceUri }],
      published: new Date().toISOString(),
    });
    expect(await receive(activity(carol, 'Create', mention(carol)))).toBe('applied');
    expect(await receive(activity(bob, 'Create', mention(bob)))).toBe('applied');
    const { handler: notifications } = await import('../../functions/notifications/index');
    const from = ((await call(notifications, { path: '/api/v1/notifications', token: alice.token })).body as { account: { id: string } }[]).map((n) => n.account.id);
    expect(from).toContain(carol.id);
    expect(from).not.toContain(bob.id);
  });
});

describe('a received Undo(Block)', () => {
  it('removes the edge when the blocker sends it; someone else’s Undo of that Block is ignored', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const mallory = await aRemote();
    const block = blockOf(bob, apUrls.actor(alice.account.username));
    expect(await receive(block)).toBe('applied');

    // Mallory undoes Bob's Block (his actor inside), or a Block of her own she never sent: nothing changes.
    expect(await receive(undoOf(mallory, block))).toBe('ignored');
    expect(await receive(undoOf(mallory, blockOf(mallory, apUrls.actor(alice.account.username))))).toBe('ignored');
    expect(await blockedBy(alice.account)).toEqual([bob.id]);
    expect(await relationship(alice, bob)).toMatchObject({ blocked_by: true });

    expect(await receive(undoOf(bob, block))).toBe('applied');
    expect(await blockedBy(alice.account)).toEqual([]);
    expect(await relationship(alice, bob)).toMatchObject({ blocked_by: false });
    // Undone again: nothing left to remove.
    expect(await receive(undoOf(bob, block))).toBe('ignored');
  });

  it('of a Block of an account not ours is ignored, and leaves the block of ours in place', async () => {
    const alice = await aUser();
    const bob = await aRemote();
    const carol = await aRemote('gamma.example');
    expect(await receive(blockOf(bob, apUrls.actor(alice.account.username)))).toBe('applied');
    expect(await receive(undoOf(bob, blockOf(bob, carol.uri)))).toBe('ignored');
    expect(await blockedBy(alice.account)).toEqual([bob.id]);
  });
});
