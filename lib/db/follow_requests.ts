// Follow requests received by a locked account: the page of them (GSI1, by
// request id, as Mastodon pages /api/v1/follow_requests) and the authorizing
// transaction that turns one into a follow edge with exact counters.
import type { Page } from '../paging';
import { countFollowerInbox } from './follower_inboxes';
import { followRecord, followRequestItem, withFollowerInbox, type Follow, type FollowEdgeOptions, type FollowRequest } from './follows';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { query, transact } from './table';

/** Requests received by `targetId`, newest request first. */
export const followRequestsPage = (targetId: string, page: Page): Promise<FollowRequest[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.followRequestsPartition(targetId) }, page, followRequestItem);

/**
 * One transaction: deletes the request (it must exist), writes the edge (it must
 * not), adds the requester's following and the target's followers, and takes
 * one off the target's request counter. False, having written nothing, otherwise.
 * A remote requester (`followerInbox`) is counted under its inbox in the same transaction.
 */
export async function authorizeFollowRequest(request: FollowRequest, follow: Follow, opts: FollowEdgeOptions = {}): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.followRequest(request.accountId, request.targetAccountId), ConditionExpression: 'attribute_exists(PK)' } },
    { Put: { Item: followRecord(withFollowerInbox(follow, opts)), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...(opts.followerInbox ? [countFollowerInbox(request.targetAccountId, opts.followerInbox, 1)] : []),
    {
      Update: {
        Key: keys.account(request.accountId),
        UpdateExpression: 'ADD followingCount :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
    {
      Update: {
        Key: keys.account(request.targetAccountId),
        UpdateExpression: 'ADD followersCount :one, followRequestsCount :minus',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1, ':minus': -1 },
      },
    },
  ]);
  return result.ok;
}

/** Requests made by `requesterId` (its partition, by target id), a page of at most `limit`: what removing an account withdraws. */
export async function followRequestsSentBy(requesterId: string, limit: number): Promise<FollowRequest[]> {
  const page = await query(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.followRequestsSentPartition(requesterId) }, Limit: limit },
    followRequestItem,
  );
  return page.items;
}
