// Following and unfollowing (Mastodon's FollowService / UnfollowService): a follow
// of an unlocked account is one transaction (edge + both counters) and merges the
// followed account's recent statuses into the follower's home; a locked account
// gets a follow request instead. Following again only changes the options given.
import { isVisible } from '../policy/accounts';
import type { Account } from '../db/accounts';
import {
  createFollow,
  createFollowRequest,
  deleteFollow,
  deleteFollowRequest,
  graphStates,
  setFollowOptions,
  setFollowRequestOptions,
  type FollowOptions,
  type GraphState,
} from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { nowIso } from '../db/table';
import { notFound } from '../errors';
import { isId, newId } from '../ids';
import { log } from '../log';
import { enqueue } from '../queue';
import { mergeIntoHome } from './home';
import { renderRelationship, type Relationship } from './relationships';

/** The target and the current state between it and the viewer, in one batch read; 404 when it cannot be followed. */
async function targetState(viewer: Account, targetId: string): Promise<GraphState & { account: Account }> {
  if (!isId(targetId)) throw notFound();
  const id = BigInt(targetId).toString();
  const state = (await graphStates(viewer.id, [id])).get(id);
  const account = state?.account;
  if (!state || !account || !isVisible(account)) throw notFound();
  return { ...state, account };
}

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

  if (state.following) {
    const following = await setFollowOptions(viewer.id, target.id, options);
    return renderRelationship(target.id, { ...state, following });
  }
  if (state.requested) {
    const requested = await setFollowRequestOptions(viewer.id, target.id, options);
    return renderRelationship(target.id, { ...state, requested });
  }

  const base = { id: newId(), showReblogs: options.showReblogs ?? true, notify: options.notify ?? false, createdAt: nowIso() };
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

export async function unfollow(viewer: Account, targetId: string): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const target = state.account;
  if (state.following && (await deleteFollow(viewer.id, target.id))) {
    await unmergeFromHome(viewer.id, target.id);
  }
  if (state.requested) await deleteFollowRequest(viewer.id, target.id);
  return renderRelationship(target.id, { ...state, following: undefined, requested: undefined });
}
