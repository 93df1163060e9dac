// Removing an account from one's followers (Mastodon's RemoveFromFollowersService,
// POST /api/v1/accounts/:id/remove_from_followers): its follow edge goes with both
// counters (and, for a remote follower, its inbox count) in one transaction. A remote
// follower's server hears a Reject of its Follow, as Mastodon sends it; a local one's
// home loses the remover's statuses, as unfollowing would take them out (follower-only
// posts it may no longer see). Not being followed by the account changes nothing.
import type { Account } from '../db/accounts';
import { deleteFollow } from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { sendRejectFollow } from '../federation/outbox';
import { isRemoteAccount } from '../policy/federation';
import { renderRelationship, type Relationship } from './relationships';
import { targetState } from './target_state';

export async function removeFromFollowers(viewer: Account, followerId: string): Promise<Relationship> {
  const state = await targetState(viewer, followerId);
  const follower = state.account;
  const edge = state.followedBy;
  // A concurrent unfollow may take the edge first: then there is nothing left to undo.
  if (edge && (await deleteFollow(follower.id, viewer.id, { followerInbox: edge.followerInbox }))) {
    if (isRemoteAccount(follower)) await sendRejectFollow(viewer, follower, edge.activityId);
    else await unmergeFromHome(follower.id, viewer.id);
  }
  return renderRelationship(follower.id, { ...state, followedBy: undefined });
}
