// Following and unfollowing (Mastodon's FollowService / UnfollowService): a follow
// of an unlocked account is one transaction (edge + both counters) and merges the
// followed account's recent statuses into the follower's home; a locked account
// gets a follow request instead. Following again only changes the options given.
// A remote account is asked over ActivityPub (Follow, and Undo to unfollow): it is
// a request until its server accepts (lib/federation/outbox.ts).
import { isVisible } from '../policy/accounts';
import { isRemoteAccount } from '../policy/federation';
import { blocksDomainOf } from '../policy/hidden';
import type { Account } from '../db/accounts';
import {
  createFollow,
  createFollowRequest,
  deleteFollow,
  deleteFollowRequest,
  graphStates,
  setFollowOptions,
  setFollowRequestOptions,
  type Follow,
  type FollowOptions,
  type FollowRequest,
  type GraphState,
} from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { nowIso } from '../db/table';
import { forbidden, notFound } from '../errors';
import { isId, newId } from '../ids';
import { log } from '../log';
import { followActivityId } from '../federation/activities';
import { sendFollow, sendUndoFollow } from '../federation/outbox';
import { enqueue } from '../queue';
import { mergeIntoHome } from './home';
import { renderRelationship, type Relationship } from './relationships';
import { targetState } from './target_state';
import { unavailableTo } from '../policy/sanctions';


async function notifyOf(type: 'follow' | 'follow_request', accountId: string, fromAccountId: string): Promise<void> {
  // The follow is committed: a lost notification must not turn it into an error.
  try {
    await enqueue('notify', { type, accountId, fromAccountId });
  } catch (err) {
    log.error('notify enqueue failed', { err, type, accountId, fromAccountId });
  }
}

export async function follow(viewer: Account, targetId: string, options: FollowOptions): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const target = state.account;
  // Following yourself is "not possible" in Mastodon: 404, as for an unknown account.
  if (target.id === viewer.id) throw notFound();
  // Nor is following a suspended account (Mastodon's following_not_possible?: unavailable?): 404.
  if (unavailableTo(target, viewer)) throw notFound();
  // Mastodon's following_not_possible?: not an account on a domain the viewer blocks.
  if (await blocksDomainOf(viewer.id, target)) throw forbidden();

  if (state.following) {
    const following = await setFollowOptions(viewer.id, target.id, options);
    return renderRelationship(target.id, { ...state, following });
  }
  if (state.requested) {
    const requested = await setFollowRequestOptions(viewer.id, target.id, options);
    return renderRelationship(target.id, { ...state, requested });
  }

  const base = { id: newId(), showReblogs: options.showReblogs ?? true, notify: options.notify ?? false, createdAt: nowIso() };
  if (isRemoteAccount(target)) return requestRemoteFollow(viewer, { ...state, account: target }, base);
  if (target.locked) {
    const request = { ...base, accountId: viewer.id, targetAccountId: target.id };
    if (await createFollowRequest(request)) await notifyOf('follow_request', target.id, viewer.id);
    return renderRelationship(target.id, { ...state, requested: request });
  }

  const edge = { ...base, followerId: viewer.id, followedId: target.id };
  if (!(await createFollow(edge))) {
    // Another request created the edge meanwhile: this one only sets its options.
    const following = await setFollowOptions(viewer.id, target.id, options);
    if (!following) throw notFound();
    return renderRelationship(target.id, { ...state, following });
  }
  await mergeIntoHome(viewer.id, target.id, edge.showReblogs);
  await notifyOf('follow', target.id, viewer.id);
  return renderRelationship(target.id, { ...state, following: edge });
}

/**
 * Following a remote account is a request, locked or not, until its server
 * answers with an Accept (the inbox worker makes it a follow), as Mastodon shows
 * it; the Follow sent carries an id made from the request's, stored on it.
 */
async function requestRemoteFollow(viewer: Account, state: GraphState & { account: Account }, base: Omit<FollowRequest, 'accountId' | 'targetAccountId'>) {
  const target = state.account;
  const request: FollowRequest = { ...base, accountId: viewer.id, targetAccountId: target.id, activityId: followActivityId(viewer, base.id) };
  if (await createFollowRequest(request)) await sendFollow(viewer, target, request.id);
  return renderRelationship(target.id, { ...state, requested: request });
}

/** The id of our Follow behind an edge or request (older ones without a stored id: the one it would have had). */
const followIdOf = (viewer: Account, edge: Follow | FollowRequest) => edge.activityId ?? followActivityId(viewer, edge.id);

export async function unfollow(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const target = state.account;
  if (state.following && (await deleteFollow(viewer.id, target.id))) {
    await unmergeFromHome(viewer.id, target.id);
    await sendUndoFollow(viewer, target, followIdOf(viewer, state.following));
  }
  // Withdrawing a request to a remote account cancels the Follow its server may still be weighing.
  if (state.requested && (await deleteFollowRequest(viewer.id, target.id))) await sendUndoFollow(viewer, target, followIdOf(viewer, state.requested));
  return renderRelationship(target.id, { ...state, following: undefined, requested: undefined });
}
