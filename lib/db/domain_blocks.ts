// Domain blocks of an account (Mastodon's AccountDomainBlock). One item per
// (account, domain) in the account's blocking partition (SK `DOMAIN#<domain>`),
// so a lookup by domain is one exact key and the whole set comes with the one
// Query of the account's blocks that every hiding decision already makes
// (lib/db/blocks.ts blockAndMuteSets); GSI1 orders the same items by block id
// for Link paging. Also the reads and writes of the clean-up after a block
// (lib/graph/domain_blocks.ts): followers and pending requests from the domain
// removed with exact counters, the domain's notifications cleared.
import { z } from 'zod';
import type { Page } from '../paging';
import { countFollowerInbox } from './follower_inboxes';
import type { Follow } from './follows';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { notificationItem, onceKey, type Notification } from './notifications';
import { batchGet, batchWrite, deleteItem, putItem, query, transact, type Item, type QueryPage, type TransactItem } from './table';
import { markHides, noteMarked } from './viewer_summary';

export const domainBlockItem = z.object({
  id: z.string(),
  accountId: z.string(),
  /** Normalised as Mastodon's TagManager#normalize_domain: ASCII (punycode), lower-case. */
  domain: z.string(),
  createdAt: z.string(),
});
export type DomainBlock = z.infer<typeof domainBlockItem>;

export const domainBlockRecord = (block: DomainBlock) => ({
  ...keys.domainBlock(block.accountId, block.domain),
  ...gsi1.domainBlockById(block.accountId, block.id),
  ...domainBlockItem.parse(block),
});

/**
 * The form an account's domain is matched against blocks in; undefined for a
 * local account. Remote accounts store their domain normalised already (as
 * Mastodon does); lower-casing keeps a stray capital from escaping a block.
 */
export const blockableDomain = (account: { domain: string | null } | undefined): string | undefined => account?.domain?.toLowerCase() || undefined;

/** Writes the block unless the account already blocks the domain (the first block keeps its id). Answers whether it was new. */
export async function createDomainBlock(block: DomainBlock): Promise<boolean> {
  // The blocking partition holds domain blocks too: the account has blocks from now on (lib/db/viewer_summary.ts).
  const result = await transact([
    { Put: { Item: domainBlockRecord(block), ConditionExpression: 'attribute_not_exists(PK)' } },
    markHides(block.accountId, ['hasBlocks']),
  ]);
  noteMarked(block.accountId, ['hasBlocks']);
  return result.ok;
}

/** Removes the block if there is one; answers whether there was. */
export const deleteDomainBlock = async (accountId: string, domain: string): Promise<boolean> =>
  (await deleteItem(keys.domainBlock(accountId, domain), domainBlockItem)) !== undefined;

/** The account's domain blocks, newest block first (GSI1, block id range). */
export const domainBlocksPage = (accountId: string, page: Page): Promise<DomainBlock[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.domainBlocksByIdPartition(accountId) }, page, domainBlockItem);

/** Which of `domains` the account blocks: one batch read of exact keys (none when `domains` is empty). */
export async function blockedDomainsAmong(accountId: string, domains: string[]): Promise<Set<string>> {
  if (domains.length === 0) return new Set();
  const found = await batchGet(domains.map((d) => keys.domainBlock(accountId, d)), domainBlockItem);
  return new Set([...found.values()].map((b) => b.domain));
}

// ---- clean-up after a domain block ----

/** What the clean-up reads of a follow request (the full item is lib/db/follows.ts's; importing it here would make a cycle). */
const requestRef = z.object({ accountId: z.string(), targetAccountId: z.string(), activityId: z.string().optional() });

/** One page of the follow requests `targetId` received (GSI1), with the key to continue from. */
export const followRequestsReceivedPage = (targetId: string, startKey?: Item): Promise<QueryPage<z.infer<typeof requestRef>>> =>
  query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.followRequestsPartition(targetId) },
      ExclusiveStartKey: startKey,
    },
    requestRef,
  );

/** One page of the account's notifications (oldest first), with the key to continue from. */
export const notificationsPageFrom = (accountId: string, startKey?: Item): Promise<QueryPage<Notification>> =>
  query(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.notificationsPartition(accountId) }, ExclusiveStartKey: startKey },
    notificationItem,
  );

/** Removes notifications and their de-duplication items (BatchWrite, 25 per call). */
export const deleteNotifications = (notifications: Notification[]): Promise<void> =>
  batchWrite(
    [],
    notifications.flatMap((n) => [keys.notification(n.accountId, n.id), onceKey(n)]),
  );

const decrement = (accountId: string, counter: 'followersCount' | 'followingCount' | 'followRequestsCount', by: number): TransactItem => ({
  Update: {
    Key: keys.account(accountId),
    UpdateExpression: 'ADD #c :by',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#c': counter },
    ExpressionAttributeValues: { ':by': -by },
  },
});

const mustExist = (key: { PK: string; SK: string }): TransactItem => ({ Delete: { Key: key, ConditionExpression: 'attribute_exists(PK)' } });

/**
 * Edges per transaction: each edge is a Delete and a follower counter, and at most one follower inbox count
 * (remote followers), plus the followed account's counter (≤ 100 items).
 */
const EDGES_PER_TRANSACTION = 33;
/** Requests per transaction: a Delete each, plus the target's counter. */
const REQUESTS_PER_TRANSACTION = 90;

/** A follower to remove: its id, and for a remote one the inbox it is counted under (its edge's `followerInbox`). */
export type FollowerRef = Pick<Follow, 'followerId' | 'followerInbox'>;

/** How many of `followers` each inbox counts: one Update per inbox (a transaction touches an item once). */
function inboxDecrements(followedId: string, followers: FollowerRef[]): TransactItem[] {
  const byInbox = new Map<string, number>();
  for (const { followerInbox } of followers) if (followerInbox) byInbox.set(followerInbox, (byInbox.get(followerInbox) ?? 0) + 1);
  return [...byInbox].map(([inbox, n]) => countFollowerInbox(followedId, inbox, -n));
}

/** Deletes these edges into `followedId` (each must exist) and moves every counter by exactly as many, in one transaction. */
const dropEdges = async (followedId: string, followers: FollowerRef[]) =>
  (
    await transact([
      ...followers.map((f) => mustExist(keys.follow(f.followerId, followedId))),
      ...followers.map((f) => decrement(f.followerId, 'followingCount', 1)),
      decrement(followedId, 'followersCount', followers.length),
      ...inboxDecrements(followedId, followers),
    ])
  ).ok;

/** Deletes these requests to `targetId` (each must exist) and its request counter by as many, in one transaction. */
const dropRequests = async (targetId: string, requesterIds: string[]) =>
  (await transact([...requesterIds.map((id) => mustExist(keys.followRequest(id, targetId))), decrement(targetId, 'followRequestsCount', requesterIds.length)])).ok;

/**
 * Runs `drop` over `ids` a chunk per transaction; when a chunk fails because one
 * of its items vanished meanwhile (an unfollow raced us), retries it one id per
 * transaction, so no counter moves for an item that was not there. Answers how many went.
 */
async function inChunks<T>(ids: T[], size: number, drop: (chunk: T[]) => Promise<boolean>): Promise<number> {
  let removed = 0;
  for (let i = 0; i < ids.length; i += size) {
    const chunk = ids.slice(i, i + size);
    if (await drop(chunk)) removed += chunk.length;
    else if (chunk.length > 1) for (const id of chunk) if (await drop([id])) removed++;
  }
  return removed;
}

/** Removes the follow edges of `followers` to `followedId` with exact counters (remote followers' inbox counts too). */
export const removeFollowers = (followedId: string, followers: FollowerRef[]): Promise<number> =>
  inChunks(followers, EDGES_PER_TRANSACTION, (chunk) => dropEdges(followedId, chunk));

/** Rejects (deletes) the pending requests of `requesterIds` to `targetId` with an exact request counter. */
export const removeFollowRequests = (targetId: string, requesterIds: string[]): Promise<number> =>
  inChunks(requesterIds, REQUESTS_PER_TRANSACTION, (chunk) => dropRequests(targetId, chunk));

/** Which of `accountIds` block any of `domains`: batch reads of the exact keys (none when either is empty). */
export async function accountsBlockingDomains(accountIds: string[], domains: string[]): Promise<Set<string>> {
  if (accountIds.length === 0 || domains.length === 0) return new Set();
  const found = await batchGet(accountIds.flatMap((id) => domains.map((d) => keys.domainBlock(id, d))), domainBlockItem);
  return new Set([...found.values()].map((b) => b.accountId));
}
