// Follow requests of a locked account (Mastodon's AuthorizeFollowService /
// RejectFollowService): list, authorize (the request becomes a follow and the
// follower's home is backfilled by the delivery rule), reject. A request from a
// remote account is answered over ActivityPub (Accept / Reject of its Follow).
import { visibleAccountsByIds } from '../policy/accounts';
import { deliveryInbox, isRemoteAccount } from '../policy/federation';
import type { Account } from '../db/accounts';
import { authorizeFollowRequest, followRequestsPage } from '../db/follow_requests';
import { deleteFollowRequest, graphStates, type FollowRequest, type GraphState } from '../db/follows';
import { nowIso } from '../db/table';
import { notFound } from '../errors';
import { sendAcceptFollow, sendRejectFollow } from '../federation/outbox';
import { isId, newId } from '../ids';
import type { Page } from '../paging';
import { mergeIntoHome } from './home';
import type { AccountPage } from './followers_following';
import { renderRelationship, type Relationship } from './relationships';

/** A page of requesters; the Link header pages by request id. */
export async function followRequestsOf(viewer: Account, page: Page): Promise<AccountPage> {
  const requests = await followRequestsPage(viewer.id, page);
  return {
    accounts: await visibleAccountsByIds(requests.map((r) => r.accountId)),
    newest: requests[0]?.id,
    oldest: requests.at(-1)?.id,
  };
}

/** The pending request from `requesterId` to the viewer, with the state between them; 404 when there is none. */
async function pending(viewer: Account, requesterId: string): Promise<GraphState & { account: Account; requestedBy: FollowRequest }> {
  if (!isId(requesterId)) throw notFound();
  const id = BigInt(requesterId).toString();
  const state = (await graphStates(viewer.id, [id])).get(id);
  const account = state?.account;
  const requestedBy = state?.requestedBy;
  if (!state || !account || !requestedBy) throw notFound();
  return { ...state, account, requestedBy };
}

export async function authorize(viewer: Account, requesterId: string): Promise<Relationship> {
  const state = await pending(viewer, requesterId);
  const request = state.requestedBy;
  const requester = state.account;
  const follow = {
    id: newId(),
    followerId: request.accountId,
    followedId: viewer.id,
    showReblogs: request.showReblogs,
    notify: request.notify,
    createdAt: nowIso(),
    ...(request.activityId ? { activityId: request.activityId } : {}),
  };
  // A remote follower is counted under its server's inbox, where our posts will go.
  const followerInbox = deliveryInbox(requester);
  // A concurrent authorize/reject/withdrawal took the request: as if it never existed.
  if (!(await authorizeFollowRequest(request, follow, { followerInbox }))) throw notFound();
  if (isRemoteAccount(requester)) {
    await sendAcceptFollow(viewer, requester, request.activityId);
  } else {
    // The follower's home gets what it may now see (private statuses included), as a new follow does.
    await mergeIntoHome(follow.followerId, viewer.id, follow.showReblogs);
  }
  return renderRelationship(requester.id, { ...state, followedBy: follow, requestedBy: undefined });
}

export async function reject(viewer: Account, requesterId: string): Promise<Relationship> {
  const state = await pending(viewer, requesterId);
  if (!(await deleteFollowRequest(state.account.id, viewer.id))) throw notFound();
  await sendRejectFollow(viewer, state.account, state.requestedBy.activityId);
  return renderRelationship(state.account.id, { ...state, requestedBy: undefined });
}
