// What local actions send over federation, and to whom (lib/federation/outbox.ts):
// through the real endpoints, with remote accounts stored as the actor fetcher
// stores them and the deliver queue's messages recorded by an inline worker.
import { z } from 'zod';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as unfollowHandler } from '../../functions/accounts/unfollow';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as blockDomainHandler } from '../../functions/domain_blocks/create';
import { handler as authorizeHandler } from '../../functions/follow_requests/authorize';
import { handler as rejectHandler } from '../../functions/follow_requests/reject';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { followerInboxesOf } from '../../lib/db/follower_inboxes';
import { createFollow, createFollowRequest, deleteFollow, followEdge, followItem, followRequestItem } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { getItem, query } from '../../lib/db/table';
import { sendPersonDelete } from '../../lib/federation/outbox';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { aFollow, aPostedStatus, aRemoteAccount as aStoredRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

type Delivery = { inbox: string; activity: Record<string, unknown>; signer: unknown };
const deliveries: Delivery[] = [];
const notified: Record<string, unknown>[] = [];
/** When set, the deliver queue refuses every message (an SQS outage). */
let queueDown = false;

registerInlineWorker('deliver', async (event) => {
  if (queueDown) throw new Error('deliver queue unavailable');
  for (const r of event.Records) deliveries.push(JSON.parse(r.body) as Delivery);
  return { batchItemFailures: [] };
});
/** When set, fan-out messages wait in `heldFanout` instead of running inside the request that sent them. */
let holdFanout = false;
const heldFanout: Parameters<typeof fanoutWorker>[0][] = [];
registerInlineWorker('fanout', async (event) => {
  if (!holdFanout) return fanoutWorker(event);
  heldFanout.push(event);
  return { batchItemFailures: [] };
});
registerInlineWorker('notify', async (event) => {
  for (const r of event.Records) notified.push(JSON.parse(r.body) as Record<string, unknown>);
  return notifyWorker(event);
});

beforeEach(() => {
  deliveries.length = 0;
  notified.length = 0;
  queueDown = false;
  holdFanout = false;
  heldFanout.length = 0;
});

// ---- remote accounts, as the actor fetcher stores them ----

/** A remote account on `server`; with `shared`, the server has a shared inbox (as Mastodon and Fedify do). */
async function aRemoteAccount(server: string, opts: { shared?: boolean } = {}): Promise<Account> {
  const stored = await aStoredRemoteAccount({ domain: server, sharedInboxUrl: opts.shared === false ? null : undefined, keyless: true });
  return stored.account;
}

/** `follower` (remote) follows `local`, as the inbox worker records an accepted Follow. */
async function aRemoteFollower(follower: Account, local: Account): Promise<void> {
  const edge = { id: newId(), followerId: follower.id, followedId: local.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
  expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl ?? follower.inboxUrl ?? undefined })).toBe(true);
}

/** `follower` (remote) asks to follow the locked `local`, as the inbox worker records a Follow. */
async function aRemoteFollowRequest(follower: Account, local: Account) {
  const request = {
    id: newId(),
    accountId: follower.id,
    targetAccountId: local.id,
    showReblogs: true,
    notify: false,
    createdAt: new Date().toISOString(),
    activityId: `${follower.uri}#follows/${newId()}`,
  };
  expect(await createFollowRequest(request)).toBe(true);
  return request;
}

// ---- the endpoints ----

const follow = (id: string, token: string) => call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token });
const unfollow = (id: string, token: string) => call(unfollowHandler, { method: 'POST', path: `/api/v1/accounts/${id}/unfollow`, pathParameters: { id }, token });
const authorize = (id: string, token: string) =>
  call(authorizeHandler, { method: 'POST', path: `/api/v1/follow_requests/${id}/authorize`, pathParameters: { id }, token });
const reject = (id: string, token: string) => call(rejectHandler, { method: 'POST', path: `/api/v1/follow_requests/${id}/reject`, pathParameters: { id }, token });
async function post(user: UserFixture, body: Record<string, unknown>) {
  const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return { id: String(res.body.id), dbCalls: res.headers['x-db-calls'] };
}
const remove = (id: string, token: string) => call(deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });

// ---- what was sent ----

const inboxesOf = (sent: Delivery[]) => sent.map((d) => d.inbox).sort();
const ofType = (type: string) => deliveries.filter((d) => d.activity.type === type);
const anyItem = z.record(z.unknown());
const homeIds = async (account: Account) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.homePartition(account.id) } }, anyItem)).items.map((e) => String(e.statusId));
const inboxCounts = async (account: Account) => Object.fromEntries((await followerInboxesOf(account.id)).map((f) => [f.inbox, f.followers]));
const mentionOf = (remote: Account) => `@${remote.username}@${remote.domain}`;

describe('following a remote account', () => {
  it('sends a Follow to its inbox, signed by the follower, and shows `requested` until its server accepts', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    const res = await follow(bob.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.id, following: false, requested: true });

    expect(deliveries).toHaveLength(1);
    const [sent] = deliveries;
    expect(sent).toMatchObject({ inbox: bob.inboxUrl, signer: { accountId: alice.account.id } });
    expect(sent!.activity).toMatchObject({
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Follow',
      actor: apUrls.actor(alice.account.username),
      object: bob.uri,
    });
    // The request keeps the Follow's id: the Accept that answers it and the Undo that cancels it name it.
    const request = await getItem(keys.followRequest(alice.account.id, bob.id), followRequestItem);
    expect(request?.activityId).toBe(sent!.activity.id);
    expect(String(sent!.activity.id).startsWith(apUrls.actor(alice.account.username))).toBe(true);
    // Nobody here is notified of a request to a remote account; its server is.
    expect(notified).toEqual([]);
    const relationships = await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id: [bob.id] }, token: alice.token });
    expect(relationships.body).toEqual([expect.objectContaining({ id: bob.id, following: false, requested: true })]);
  });

  it('sends nothing more when asked again while the request is pending, and nothing for a local account', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    await follow(bob.id, alice.token);
    deliveries.length = 0;
    expect((await follow(bob.id, alice.token)).body).toMatchObject({ requested: true });
    const carol = await aUser();
    expect((await follow(carol.account.id, alice.token)).body).toMatchObject({ following: true });
    expect(deliveries).toEqual([]);
  });

  it('withdraws a pending request with an Undo of the stored Follow', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    await follow(bob.id, alice.token);
    const followId = deliveries[0]!.activity.id;
    deliveries.length = 0;

    const res = await unfollow(bob.id, alice.token);
    expect(res.body).toMatchObject({ following: false, requested: false });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      inbox: bob.inboxUrl,
      activity: { type: 'Undo', actor: apUrls.actor(alice.account.username), object: { id: followId, type: 'Follow', actor: apUrls.actor(alice.account.username), object: bob.uri } },
    });
    expect(deliveries[0]!.activity.id).not.toBe(followId);
    expect(await getItem(keys.followRequest(alice.account.id, bob.id), followRequestItem)).toBeUndefined();
  });

  it('unfollows an accepted follow with an Undo of the Follow that made it', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    const followId = `${apUrls.actor(alice.account.username)}#follows/${newId()}`;
    // As the inbox worker leaves it after bob's server sent Accept.
    await createFollow({ id: newId(), followerId: alice.account.id, followedId: bob.id, showReblogs: true, notify: false, createdAt: new Date().toISOString(), activityId: followId });

    const res = await unfollow(bob.id, alice.token);
    expect(res.body).toMatchObject({ following: false });
    expect(ofType('Undo')).toHaveLength(1);
    expect(ofType('Undo')[0]).toMatchObject({ inbox: bob.inboxUrl, activity: { object: { id: followId, type: 'Follow', object: bob.uri } } });
    expect(await followEdge(alice.account.id, bob.id)).toBeUndefined();
  });

  it('still answers the user when the deliver queue is down (the request stands, the loss is logged)', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    queueDown = true;
    const res = await follow(bob.id, alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: true });
    expect(await getItem(keys.followRequest(alice.account.id, bob.id), followRequestItem)).toBeDefined();
  });
});

describe('answering a remote account’s follow request', () => {
  let locked: UserFixture;
  beforeEach(async () => {
    locked = await aUser();
    await updateAccount(locked.account.id, { locked: true });
    locked.account = { ...locked.account, locked: true };
  });

  it('authorize sends Accept of its Follow, counts it under its server’s inbox, and writes it no home', async () => {
    const bob = await aRemoteAccount('beta.example');
    const request = await aRemoteFollowRequest(bob, locked.account);
    await aPostedStatus(locked.account, { visibility: 'private' });

    const res = await authorize(bob.id, locked.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.id, followed_by: true, requested_by: false });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      inbox: bob.inboxUrl,
      signer: { accountId: locked.account.id },
      activity: {
        type: 'Accept',
        actor: apUrls.actor(locked.account.username),
        object: { id: request.activityId, type: 'Follow', actor: bob.uri, object: apUrls.actor(locked.account.username) },
      },
    });
    const edge = await getItem(keys.follow(bob.id, locked.account.id), followItem);
    expect(edge).toMatchObject({ followerRemote: true, followerInbox: bob.sharedInboxUrl, activityId: request.activityId });
    expect(await inboxCounts(locked.account)).toEqual({ [bob.sharedInboxUrl!]: 1 });
    // A remote follower's home is on its own server: nothing merged here.
    expect(await homeIds(bob)).toEqual([]);
  });

  it('reject sends Reject of its Follow and leaves no follower behind', async () => {
    const bob = await aRemoteAccount('beta.example');
    const request = await aRemoteFollowRequest(bob, locked.account);
    const res = await reject(bob.id, locked.token);
    expect(res.status).toBe(200);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      inbox: bob.inboxUrl,
      activity: { type: 'Reject', actor: apUrls.actor(locked.account.username), object: { id: request.activityId, type: 'Follow', actor: bob.uri } },
    });
    expect(await followEdge(bob.id, locked.account.id)).toBeUndefined();
    expect(await inboxCounts(locked.account)).toEqual({});
  });

  it('answers a local requester as before: no activity', async () => {
    const carol = await aUser();
    await follow(locked.account.id, carol.token);
    await authorize(carol.account.id, locked.token);
    expect(deliveries).toEqual([]);
    expect(await inboxCounts(locked.account)).toEqual({});
  });
});

describe('the inboxes of remote followers', () => {
  it('counts followers per inbox in the follow transactions and skips an inbox nobody is behind any more', async () => {
    const alice = (await aUser()).account;
    const [a1, a2, a3] = [await aRemoteAccount('a.example'), await aRemoteAccount('a.example'), await aRemoteAccount('a.example')];
    const b1 = await aRemoteAccount('b.example', { shared: false });
    for (const f of [a1!, a2!, a3!, b1]) await aRemoteFollower(f, alice);
    expect(await inboxCounts(alice)).toEqual({ 'https://a.example/inbox': 3, [b1.inboxUrl!]: 1 });

    // A second follow of the same edge writes nothing, the count included.
    expect(await createFollow({ id: newId(), followerId: a1!.id, followedId: alice.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() }, { followerInbox: 'https://a.example/inbox' })).toBe(false);
    expect(await inboxCounts(alice)).toEqual({ 'https://a.example/inbox': 3, [b1.inboxUrl!]: 1 });

    expect(await deleteFollow(a1!.id, alice.id, { followerInbox: 'https://a.example/inbox' })).toBe(true);
    expect(await deleteFollow(b1.id, alice.id, { followerInbox: b1.inboxUrl! })).toBe(true);
    expect(await inboxCounts(alice)).toEqual({ 'https://a.example/inbox': 2 });
    // An unfollow that finds no edge moves no count.
    expect(await deleteFollow(b1.id, alice.id, { followerInbox: b1.inboxUrl! })).toBe(false);
    expect(await inboxCounts(alice)).toEqual({ 'https://a.example/inbox': 2 });
    // Local followers are not in the set at all.
    const carol = await aUser();
    await follow(alice.id, carol.token);
    expect(await inboxCounts(alice)).toEqual({ 'https://a.example/inbox': 2 });
  });

  it('a block of a remote account takes it off the set, rejects its follow and undoes ours', async () => {
    const alice = await aUser();
    const bob = await aRemoteAccount('beta.example');
    await aRemoteFollower(bob, alice.account);
    await follow(bob.id, alice.token);
    const ourFollow = deliveries[0]!.activity.id;
    deliveries.length = 0;

    const res = await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${bob.id}/block`, pathParameters: { id: bob.id }, token: alice.token });
    expect(res.body).toMatchObject({ blocking: true, followed_by: false, requested: false });
    expect(await inboxCounts(alice.account)).toEqual({});
    expect(deliveries.map((d) => [d.inbox, d.activity.type])).toEqual([
      [bob.inboxUrl, 'Undo'],
      [bob.inboxUrl, 'Reject'],
      [bob.inboxUrl, 'Block'],
    ]);
    expect(ofType('Undo')[0]!.activity).toMatchObject({ object: { id: ourFollow, type: 'Follow' } });
    expect(ofType('Reject')[0]!.activity).toMatchObject({ object: { type: 'Follow', actor: bob.uri, object: apUrls.actor(alice.account.username) } });
  });

  it('a domain block removes that server’s followers from the set, and no other, and rejects each one’s follow', async () => {
    const alice = await aUser();
    const blocked = [await aRemoteAccount('blocked.example'), await aRemoteAccount('blocked.example')];
    const kept = await aRemoteAccount('kept.example');
    for (const f of [...blocked, kept]) await aRemoteFollower(f, alice.account);
    const asking = await aRemoteAccount('blocked.example');
    const request = await aRemoteFollowRequest(asking, alice.account);
    const res = await call(blockDomainHandler, { method: 'POST', path: '/api/v1/domain_blocks', json: { domain: 'blocked.example' }, token: alice.token });
    expect(res.status).toBe(200);
    expect(await inboxCounts(alice.account)).toEqual({ 'https://kept.example/inbox': 1 });
    expect(ofType('Reject').map((d) => d.inbox).sort()).toEqual([...blocked, asking].map((b) => b.inboxUrl).sort());
    expect(deliveries).toHaveLength(3);
    expect(ofType('Reject').find((d) => d.inbox === asking.inboxUrl)!.activity).toMatchObject({ object: { id: request.activityId, actor: asking.uri } });
  });
});

describe('posting', () => {
  /** An author with 3 remote followers on one server (shared inbox), 1 on a server without one, and 1 local follower. */
  async function anAudience() {
    const author = await aUser();
    const onA = [await aRemoteAccount('a.example'), await aRemoteAccount('a.example'), await aRemoteAccount('a.example')];
    const onB = await aRemoteAccount('b.example', { shared: false });
    for (const f of [...onA, onB]) await aRemoteFollower(f, author.account);
    const local = await aUser();
    await follow(author.account.id, local.token);
    deliveries.length = 0;
    return { author, onA, onB, local, followerInboxes: ['https://a.example/inbox', onB.inboxUrl!].sort() };
  }

  it('a public status: one Create per follower inbox (3 followers behind a shared inbox make one), to Public, cc the followers', async () => {
    const { author, onA, local, followerInboxes } = await anAudience();
    const { id } = await post(author, { status: 'hello fediverse #tootless', visibility: 'public' });
    const creates = ofType('Create');
    expect(inboxesOf(creates)).toEqual(followerInboxes);
    expect(deliveries).toHaveLength(2);
    for (const d of creates) {
      expect(d.signer).toEqual({ accountId: author.account.id });
      expect(d.activity).toMatchObject({
        id: apUrls.activity(author.account.username, id),
        actor: apUrls.actor(author.account.username),
        to: [AS_PUBLIC],
        cc: [apUrls.followers(author.account.username)],
        object: { id: apUrls.status(author.account.username, id), type: 'Note', attributedTo: apUrls.actor(author.account.username) },
      });
    }
    // The fan-out wrote the local follower's home, and no home for a remote follower.
    expect(await homeIds(local.account)).toEqual([id]);
    for (const remote of onA) expect(await homeIds(remote)).toEqual([]);
  });

  it('costs the posting request no more calls with remote followers than without (the Create is sent by the fan-out worker)', async () => {
    const { author } = await anAudience();
    const loner = await aUser();
    // The request's own calls, as on a stack, where the fan-out worker runs apart from it.
    holdFanout = true;
    process.env.EXPOSE_METRICS = '1';
    try {
      const withRemote = await post(author, { status: 'counted', visibility: 'public' });
      const without = await post(loner, { status: 'counted', visibility: 'public' });
      expect(withRemote.dbCalls).toBe(without.dbCalls);
      expect(withRemote.dbCalls).toBe('7');
    } finally {
      delete process.env.EXPOSE_METRICS;
    }
    expect(deliveries).toEqual([]);
    for (const event of heldFanout) expect((await fanoutWorker(event)).batchItemFailures).toEqual([]);
    expect(ofType('Create')).toHaveLength(2);
  });

  it('an unlisted status: to the followers, Public in cc', async () => {
    const { author, followerInboxes } = await anAudience();
    await post(author, { status: 'quietly', visibility: 'unlisted' });
    const creates = ofType('Create');
    expect(inboxesOf(creates)).toEqual(followerInboxes);
    expect(creates[0]!.activity).toMatchObject({ to: [apUrls.followers(author.account.username)], cc: [AS_PUBLIC] });
  });

  it('a followers-only status with a remote mention: the followers’ inboxes and the mentioned account’s, Public nowhere', async () => {
    const { author, followerInboxes } = await anAudience();
    const carol = await aRemoteAccount('c.example');
    const { id } = await post(author, { status: `for friends, and ${mentionOf(carol)}`, visibility: 'private' });
    const creates = ofType('Create');
    expect(inboxesOf(creates)).toEqual([...followerInboxes, carol.sharedInboxUrl!].sort());
    for (const d of creates) {
      const text = JSON.stringify(d.activity);
      expect(text).not.toContain(AS_PUBLIC);
      expect(text).not.toContain('as:Public');
      expect(d.activity).toMatchObject({ to: [apUrls.followers(author.account.username)], cc: [carol.uri] });
      expect((d.activity.object as { tag: unknown[] }).tag).toContainEqual({ type: 'Mention', href: carol.uri, name: `@${carol.username}@${carol.domain}` });
    }
    // The remote mention is linked, recorded, and notified by its own server, not here.
    expect(notified.filter((n) => n.type === 'mention')).toEqual([]);
    expect(await homeIds(carol)).toEqual([]);
    const status = await call((await import('../../functions/statuses/show')).handler, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token: author.token });
    expect(status.body.mentions).toEqual([{ id: carol.id, username: carol.username, acct: `${carol.username}@${carol.domain}`, url: carol.url }]);
  });

  it('a direct status: only the mentioned remote accounts, addressed to them alone', async () => {
    const { author } = await anAudience();
    const carol = await aRemoteAccount('c.example');
    const dave = await aRemoteAccount('d.example', { shared: false });
    await post(author, { status: `${mentionOf(carol)} ${mentionOf(dave)} psst`, visibility: 'direct' });
    const creates = ofType('Create');
    expect(inboxesOf(creates)).toEqual([carol.sharedInboxUrl!, dave.inboxUrl!].sort());
    for (const d of creates) {
      expect(d.activity).toMatchObject({ to: [carol.uri, dave.uri], cc: [] });
      expect(JSON.stringify(d.activity)).not.toContain(AS_PUBLIC);
    }
  });

  it('an open reply reaches the remote author replied to; a followers-only one only if it mentions them', async () => {
    const author = await aUser();
    const carol = await aRemoteAccount('c.example');
    const parent = await aPostedStatus(carol, { uri: `${carol.uri}/statuses/1`, url: `${carol.url}/1` });
    await post(author, { status: 'nice', in_reply_to_id: parent.id, visibility: 'public' });
    expect(inboxesOf(ofType('Create'))).toEqual([carol.sharedInboxUrl!]);
    deliveries.length = 0;
    await post(author, { status: 'just my followers', in_reply_to_id: parent.id, visibility: 'private' });
    expect(deliveries).toEqual([]);
  });

  it('sends nothing for an author without remote audience, nor for a status scheduled for later', async () => {
    const author = await aUser();
    const local = await aUser();
    await follow(author.account.id, local.token);
    await post(author, { status: 'only locals', visibility: 'public' });
    const { author: withFollowers } = await anAudience();
    const res = await call(createStatus, {
      method: 'POST',
      path: '/api/v1/statuses',
      json: { status: 'later', scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
      token: withFollowers.token,
    });
    expect(res.status).toBe(200);
    expect(deliveries).toEqual([]);
  });

  it('a remote status fanned out here sends nothing back', async () => {
    const carol = await aRemoteAccount('c.example');
    const alice = await aUser();
    await aRemoteFollower(await aRemoteAccount('a.example'), alice.account);
    await aFollow(alice.account, carol);
    const { fanOut } = await import('../../lib/timelines/fanout');
    const remote = await aPostedStatus(carol, { uri: `${carol.uri}/statuses/2`, url: `${carol.url}/2`, mentions: [{ id: alice.account.id, username: alice.account.username, acct: alice.account.username, url: '' }] });
    // Alice's home only: the remote author has no home here to write.
    expect((await fanOut(remote.id)).written).toBe(1);
    expect(deliveries).toEqual([]);
    expect(await homeIds(alice.account)).toEqual([remote.id]);
  });
});

describe('deleting', () => {
  it('sends Delete of a Tombstone where the Create went, addressed as it was', async () => {
    const author = await aUser();
    const onA = await aRemoteAccount('a.example');
    await aRemoteFollower(onA, author.account);
    const carol = await aRemoteAccount('c.example', { shared: false });
    const { id } = await post(author, { status: `secret ${mentionOf(carol)}`, visibility: 'private' });
    const createdAt = inboxesOf(ofType('Create'));
    deliveries.length = 0;

    expect((await remove(id, author.token)).status).toBe(200);
    const deletes = ofType('Delete');
    expect(inboxesOf(deletes)).toEqual(createdAt);
    expect(createdAt).toEqual(['https://a.example/inbox', carol.inboxUrl!].sort());
    for (const d of deletes) {
      expect(d.activity).toMatchObject({
        actor: apUrls.actor(author.account.username),
        to: [apUrls.followers(author.account.username)],
        cc: [carol.uri],
        object: { id: apUrls.status(author.account.username, id), type: 'Tombstone' },
      });
      expect(JSON.stringify(d.activity)).not.toContain(AS_PUBLIC);
    }
  });

  it('a public status’s Delete names Public; a status nobody remote saw sends nothing', async () => {
    const author = await aUser();
    await aRemoteFollower(await aRemoteAccount('a.example'), author.account);
    const { id } = await post(author, { status: 'oops', visibility: 'public' });
    deliveries.length = 0;
    await remove(id, author.token);
    expect(ofType('Delete')[0]!.activity).toMatchObject({ to: [AS_PUBLIC] });

    const loner = await aUser();
    const other = await post(loner, { status: 'unseen' });
    deliveries.length = 0;
    await remove(other.id, loner.token);
    expect(deliveries).toEqual([]);
  });
});

describe('profile changes and account deletion', () => {
  it('update_credentials sends Update(Person) to each remote follower inbox once', async () => {
    const alice = await aUser();
    for (const f of [await aRemoteAccount('a.example'), await aRemoteAccount('a.example'), await aRemoteAccount('b.example', { shared: false })]) {
      await aRemoteFollower(f, alice.account);
    }
    const res = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { display_name: 'Alice Liddell' }, token: alice.token });
    expect(res.status).toBe(200);
    const updates = ofType('Update');
    expect(updates).toHaveLength(2);
    expect(new Set(updates.map((d) => d.inbox)).has('https://a.example/inbox')).toBe(true);
    const actor = apUrls.actor(alice.account.username);
    for (const d of updates) {
      expect(d.activity).toMatchObject({ actor, to: [AS_PUBLIC], object: { id: actor, type: 'Person', name: 'Alice Liddell' } });
      expect(d.activity['@context']).toBeDefined();
      expect((d.activity.object as Record<string, unknown>)['@context']).toBeUndefined();
    }
  });

  it('a profile change without remote followers sends nothing', async () => {
    const alice = await aUser();
    await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { display_name: 'Quiet' }, token: alice.token });
    expect(deliveries).toEqual([]);
  });

  it('Delete(Person) goes to the remote followers’ servers', async () => {
    const alice = await aUser();
    await aRemoteFollower(await aRemoteAccount('a.example'), alice.account);
    await sendPersonDelete(alice.account);
    const actor = apUrls.actor(alice.account.username);
    expect(deliveries).toEqual([{ inbox: 'https://a.example/inbox', signer: { accountId: alice.account.id }, attempt: 1, activity: expect.objectContaining({ type: 'Delete', actor, object: actor, to: [AS_PUBLIC] }) }]);
  });
});
