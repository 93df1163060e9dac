// The inboxes of a local account's remote followers: one item per inbox (a
// server's shared inbox, or an actor's own inbox when it has none) with the
// number of followers behind it. The follow transactions of lib/db/follows.ts
// keep the counts; a post to 1,000 followers on 10 servers reads 10 items here.
import { z } from 'zod';
import * as keys from './keys';
import { queryAll, type TransactItem } from './table';

/**
 * Moves the count of remote followers behind `inbox`, inside the transaction that
 * writes or deletes their follow edges. An item is not deleted at zero: a delete
 * racing a new follow could lose that follow's count, so readers skip zeros.
 */
export const countFollowerInbox = (followedId: string, inbox: string, by: number): TransactItem => ({
  Update: {
    Key: keys.followerInbox(followedId, inbox),
    UpdateExpression: 'ADD followers :by',
    ExpressionAttributeValues: { ':by': by },
  },
});

const followerInboxItem = z.object({ SK: z.string(), followers: z.number() });
export type FollowerInbox = { inbox: string; followers: number };

/**
 * Every inbox with at least one remote follower of `accountId` (all pages). Items
 * at zero are left in place by unfollows (see countFollowerInbox) and skipped here.
 */
export async function followerInboxesOf(accountId: string): Promise<FollowerInbox[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :pk',
      FilterExpression: 'followers > :zero',
      ExpressionAttributeValues: { ':pk': keys.followerInboxesPartition(accountId), ':zero': 0 },
      ProjectionExpression: 'SK, followers',
    },
    followerInboxItem,
  );
  return items.map((item) => ({ inbox: item.SK, followers: item.followers }));
}
