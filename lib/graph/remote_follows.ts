// Follows that cross servers, as the inbox receives them (Mastodon's
// ActivityPub::Activity::Follow, Undo, Accept and Reject): a remote actor's
// Follow of a local account, its Undo, and the remote answer to our own Follow.
// The sending side (our Follow, Undo, Accept, Reject) is in ./follow.ts and
// ./follow_requests.ts; both keep the Follow's ActivityPub id on the edge or the
// request, which the answers and Undos name.
import type { Account } from '../db/accounts';
import { authorizeFollowRequest, followRequestsPage, followRequestsSentBy } from '../db/follow_requests';
import {
  createFollow,
  createFollowRequest,
  deleteFollow,
  deleteFollowRequest,
  followersPage,
  followingPage,
  graphStates,
  type Follow,
  type FollowRequest,
  type GraphState,
} from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { nowIso } from '../db/table';
import { newId } from '../ids';
import { log } from '../log';
import { enqueue } from '../queue';
import { deliveryInbox } from '../policy/federation';
import { sendAcceptFollow, sendRejectFollow } from '../federation/outbox';
import { mergeIntoHome } from './home';

/** What became of a Follow received: followed, asked (locked account), already so, or turned down. */
export type RemoteFollowOutcome = 'followed' | 'requested' | 'already-following' | 'already-requested' | 'rejected';

/** The state between `from` and `to`, as graphStates reads it from `to`'s side. */
async function stateBetween(to: Account, from: Account): Promise<GraphState> {
  const state = (await graphStates(to.id, [from.id])).get(from.id);
  if (!state) throw new Error(`graph state of ${from.id} and ${to.id} not read`);
  return state;
}

async function notifyOf(type: 'follow' | 'follow_request', accountId: string, fromAccountId: string): Promise<void> {
  // The follow is committed: a lost notification must not undo it, nor make the inbox retry it.
  try {
    await enqueue('notify', { type, accountId, fromAccountId });
  } catch (err) {
    log.error('notify enqueue failed', { err, type, accountId, fromAccountId });
  }
}

/**
 * `follower` (remote) follows `target` (local) by the Follow `activityId`: a follow and an Accept for an
 * unlocked account, a follow request for a locked one (answered when its owner decides), a Reject when the
 * target blocks the follower or its domain. A Follow already granted is accepted again (its server may have
 * missed our Accept); one already asked for waits, as Mastodon does.
 */
export async function receiveFollow(follower: Account, target: Account, activityId: string): Promise<RemoteFollowOutcome> {
  const state = await stateBetween(target, follower);
  if (state.blocking || state.domainBlocking) {
    await sendRejectFollow(target, follower, activityId);
    return 'rejected';
  }
  if (state.followedBy) {
    await sendAcceptFollow(target, follower, activityId);
    return 'already-following';
  }
  if (state.requestedBy) return 'already-requested';

  const base = { id: newId(), showReblogs: true, notify: false, createdAt: nowIso(), activityId };
  if (target.locked) {
    const request: FollowRequest = { ...base, accountId: follower.id, targetAccountId: target.id };
    if (!(await createFollowRequest(request))) return 'already-requested';
    await notifyOf('follow_request', target.id, follower.id);
    return 'requested';
  }
  const edge: Follow = { ...base, followerId: follower.id, followedId: target.id };
  // The follower's server is counted under the inbox our posts will go to (lib/db/follower_inboxes.ts).
  if (await createFollow(edge, { followerInbox: deliveryInbox(follower) })) {
    await notifyOf('follow', target.id, follower.id);
  }
  // Accepted whether this delivery or a concurrent one made the edge: the answer is the same.
  await sendAcceptFollow(target, follower, activityId);
  return 'followed';
}

/** `follower` (remote) takes back its Follow of `target` (local): the follow, or the request still pending. */
export async function receiveUndoFollow(follower: Account, target: Account): Promise<'unfollowed' | 'withdrawn' | 'none'> {
  const state = await stateBetween(target, follower);
  if (state.followedBy && (await deleteFollow(follower.id, target.id, { followerInbox: state.followedBy.followerInbox }))) return 'unfollowed';
  if (state.requestedBy && (await deleteFollowRequest(follower.id, target.id))) return 'withdrawn';
  return 'none';
}

/**
 * Does an answer name our pending Follow? When both the request and the answer carry the Follow's id they must
 * agree (an answer to an older Follow that was withdrawn must not complete a newer one); an answer without one
 * (some servers send only the actor) is taken as naming the request between the two accounts.
 */
const answers = (request: FollowRequest, followId: string | undefined) => !followId || !request.activityId || request.activityId === followId;

/**
 * `target` (remote) accepts `follower`'s (local) Follow: the request becomes a follow with exact counters and
 * the follower's home gets the target's recent statuses, as authorizing a local request does.
 */
export async function receiveAccept(follower: Account, target: Account, followId: string | undefined): Promise<'followed' | 'none'> {
  const state = await stateBetween(follower, target);
  const request = state.requested;
  if (!request || !answers(request, followId)) return 'none';
  const follow: Follow = {
    id: newId(),
    followerId: follower.id,
    followedId: target.id,
    showReblogs: request.showReblogs,
    notify: request.notify,
    createdAt: nowIso(),
    ...(request.activityId ? { activityId: request.activityId } : {}),
  };
  if (!(await authorizeFollowRequest(request, follow))) return 'none';
  await mergeIntoHome(follower.id, target.id, follow.showReblogs);
  return 'followed';
}

/**
 * `target` (remote) turns down `follower`'s (local) Follow: the pending request goes; a follow it had accepted
 * goes too (Mastodon reads a Reject of an accepted Follow as the follower being removed).
 */
export async function receiveReject(follower: Account, target: Account, followId: string | undefined): Promise<'rejected' | 'unfollowed' | 'none'> {
  const state = await stateBetween(follower, target);
  if (state.requested && answers(state.requested, followId) && (await deleteFollowRequest(follower.id, target.id))) return 'rejected';
  const edge = state.following;
  if (edge && (!followId || !edge.activityId || edge.activityId === followId) && (await deleteFollow(follower.id, target.id))) {
    await unmergeFromHome(follower.id, target.id);
    return 'unfollowed';
  }
  return 'none';
}

/** Edges and requests read per round of `dropFollowsOf`. */
const DROP_PAGE = 40;

/** Runs `remove` over each item, answering how many it removed. */
async function removeEach<T>(items: T[], remove: (item: T) => Promise<boolean>): Promise<number> {
  let removed = 0;
  for (const item of items) if (await remove(item)) removed++;
  return removed;
}

/**
 * Removes every follow and follow request of a remote account that is being deleted, both ways, with exact
 * counters on the local side (and the follower inbox counts): at most `limit` of them; answers whether all
 * are gone (false: call again).
 */
export async function dropFollowsOf(account: Account, limit: number): Promise<boolean> {
  let budget = limit;
  const kinds: (() => Promise<{ read: number; removed: number }>)[] = [
    // Local accounts it follows: their followers count and the inbox it was counted under.
    async () => {
      const edges = await followingPage(account.id, { limit: DROP_PAGE });
      return { read: edges.length, removed: await removeEach(edges, (e) => deleteFollow(e.followerId, e.followedId, { followerInbox: e.followerInbox })) };
    },
    // Local accounts following it.
    async () => {
      const edges = await followersPage(account.id, { limit: DROP_PAGE });
      return { read: edges.length, removed: await removeEach(edges, (e) => deleteFollow(e.followerId, e.followedId)) };
    },
    // Its pending requests to local accounts, and theirs to it.
    async () => {
      const sent = await followRequestsSentBy(account.id, DROP_PAGE);
      return { read: sent.length, removed: await removeEach(sent, (r) => deleteFollowRequest(r.accountId, r.targetAccountId)) };
    },
    async () => {
      const received = await followRequestsPage(account.id, { limit: DROP_PAGE });
      return { read: received.length, removed: await removeEach(received, (r) => deleteFollowRequest(r.accountId, r.targetAccountId)) };
    },
  ];
  for (const kind of kinds) {
    for (;;) {
      if (budget <= 0) return false;
      const { read, removed } = await kind();
      budget -= read;
      // A page that ends the partition, or that nothing could be removed from (its other account is gone), ends this kind.
      if (read < DROP_PAGE || removed === 0) {
        if (removed < read) log.warn('remote account removal: follows left behind', { accountId: account.id, left: read - removed });
        break;
      }
    }
  }
  return true;
}
