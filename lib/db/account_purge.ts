// What the purge of a suspended account (lib/moderation/purge.ts) reads and removes beyond the aggregates' own
// functions: a page at a time, each call answering how many items it read and how many it removed, so that a step
// is over when a page comes back short (or when nothing on it could be removed: an index that lags behind its table
// is left for what it is rather than looped on).
//
// Two shapes. The account's own partitions (its blocks and domain blocks, mutes, filters, endorsements, markers,
// notes, featured tags, followed tags, conversations) are read consistently and deleted in one BatchWrite per page,
// with the items each one implies (a featured tag's name claim, a followed tag's follower entry, a conversation's
// pointer). What other accounts hold about it (their blocks and mutes of it, the notifications it caused them, its
// notification requests) and its uploads are read through GSI1 and deleted one conditional delete each, the count of
// those actually removed deciding the end.
import { z } from 'zod';
import { blockItem, muteItem } from './blocks';
import * as gsi1 from './gsi1';
import * as keys from './keys';
import type { Key } from './keys';
import { mediaItem, type Media } from './media';
import { notificationItem } from './notifications';
import { notificationRequestItem } from './notification_requests';
import { batchWrite, deleteItem, query, type Parser } from './table';

/** How a page went: items read, items removed. */
export type PurgePage = { read: number; removed: number };

const keyOf = z.object({ PK: z.string(), SK: z.string() }).passthrough();
type Stored = z.infer<typeof keyOf>;

const withTag = z.object({ tag: z.string() });
const withConversation = z.object({ conversationId: z.string() });

/**
 * The account's own partitions the purge empties, each with the other items an item of it implies. The purge runs a
 * step per kind in this order and saves its step index: a new kind goes last.
 */
const OWN_PARTITIONS = {
  /** Its blocks of accounts and its domain blocks (one partition; their GSI1 entries go with them). */
  blocks: { partition: keys.blockingPartition, implied: () => [] },
  /** Its mutes (their `MUTED_BY#` entries go with them). */
  mutes: { partition: keys.mutingPartition, implied: () => [] },
  /** Its filters with their keywords and statuses, and the copy of its hide filters the fan-out reads. */
  filters: { partition: keys.filtersPartition, implied: (_item: Stored, accountId: string) => [keys.irreversibleFilters(accountId)] },
  /** The accounts it endorses (those left: unfollowing removes them). */
  endorsements: { partition: keys.endorsementsPartition, implied: () => [] },
  markers: { partition: keys.markerPartition, implied: () => [] },
  /** Its private notes about other accounts. */
  notes: { partition: keys.accountNotesPartition, implied: () => [] },
  /** Its featured tags, with their name claims. */
  featuredTags: { partition: keys.featuredTagsPartition, implied: (item: Stored, accountId: string) => [keys.featuredTagName(accountId, withTag.parse(item).tag)] },
  /** Its followed tags, with its entry among each tag's followers (what the fan-out reads). */
  followedTags: { partition: keys.tagFollowsPartition, implied: (item: Stored, accountId: string) => [keys.tagFollower(withTag.parse(item).tag, accountId)] },
  /** Its conversations: each list entry with the conversation's pointer. */
  conversations: {
    partition: keys.conversationsPartition,
    implied: (item: Stored, accountId: string) => [keys.conversation(accountId, withConversation.parse(item).conversationId)],
  },
} satisfies Record<string, { partition: (accountId: string) => string; implied: (item: Stored, accountId: string) => Key[] }>;

export type OwnPartition = keyof typeof OWN_PARTITIONS;
export const ownPartitions = Object.keys(OWN_PARTITIONS) as OwnPartition[];

/**
 * Removes the first `limit` items of one of the account's own partitions and what they imply: one consistent Query,
 * one BatchWrite. The partition is empty once a page comes back short.
 */
export async function purgeOwnPartitionPage(accountId: string, kind: OwnPartition, limit: number): Promise<PurgePage> {
  const { partition, implied } = OWN_PARTITIONS[kind];
  const page = await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': partition(accountId) }, Limit: limit, ConsistentRead: true }, keyOf);
  const deletes = new Map<string, Key>();
  for (const item of page.items) {
    for (const key of [{ PK: item.PK, SK: item.SK }, ...implied(item, accountId)]) deletes.set(`${key.PK}\u0000${key.SK}`, key);
  }
  await batchWrite([], [...deletes.values()]);
  return { read: page.items.length, removed: page.items.length };
}

/** The first `limit` entries of one of the account's GSI1 partitions. */
const indexPage = <T>(partition: string, limit: number, parser: Parser<T>) =>
  query({ IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': partition }, Limit: limit }, parser).then((p) => p.items);

/** Runs `remove` over the page (ten at a time), counting what it removed. */
async function removeEach<T>(items: T[], remove: (item: T) => Promise<boolean>): Promise<PurgePage> {
  let removed = 0;
  for (let i = 0; i < items.length; i += 10) {
    const done = await Promise.all(items.slice(i, i + 10).map(remove));
    removed += done.filter(Boolean).length;
  }
  return { read: items.length, removed };
}

const existing = { ConditionExpression: 'attribute_exists(PK)' };

/** Other accounts' blocks of the account (GSI1 `BLOCKED_BY#`): a page removed. */
export async function purgeBlocksOfAccountPage(accountId: string, limit: number): Promise<PurgePage> {
  const blocks = await indexPage(gsi1.blockedByPartition(accountId), limit, blockItem);
  return removeEach(blocks, async (b) => (await deleteItem(keys.block(b.accountId, accountId), blockItem, existing)) !== undefined);
}

/** Other accounts' mutes of the account (GSI1 `MUTED_BY#`; mutes written before that index are not in it): a page removed. */
export async function purgeMutesOfAccountPage(accountId: string, limit: number): Promise<PurgePage> {
  const mutes = await indexPage(gsi1.mutedByPartition(accountId), limit, muteItem);
  return removeEach(mutes, async (m) => (await deleteItem(keys.mute(m.accountId, accountId), muteItem, existing)) !== undefined);
}

const sentEntry = z.object({ PK: z.string(), SK: z.string(), notificationId: z.string(), accountId: z.string() });

/**
 * Notifications the account caused other accounts (GSI1 `NOTIFS_FROM#` on their de-duplication items; those written
 * before that index are not in it): each notification and its de-duplication item removed, and, for one its
 * recipient's policy had filtered, the recipient's request from the account (Mastodon's purge_generated_notifications!).
 */
export async function purgeNotificationsFromAccountPage(accountId: string, limit: number): Promise<PurgePage> {
  const sent = await indexPage(gsi1.notificationsSentPartition(accountId), limit, sentEntry);
  return removeEach(sent, async (entry) => {
    const notification = await deleteItem(keys.notification(entry.accountId, entry.notificationId), notificationItem);
    if (notification?.filtered) await deleteItem(keys.notificationRequest(entry.accountId, accountId), z.unknown());
    return (await deleteItem({ PK: entry.PK, SK: entry.SK }, z.unknown(), existing)) !== undefined;
  });
}

/** The notification requests the account received (GSI1 `NOTIF_REQS#`), a page removed; with the last page, its policy. */
export async function purgeNotificationRequestsPage(accountId: string, limit: number): Promise<PurgePage> {
  const requests = await indexPage(gsi1.notificationRequestsPartition(accountId), limit, notificationRequestItem);
  const page = await removeEach(requests, async (r) => (await deleteItem(keys.notificationRequest(accountId, r.fromAccountId), z.unknown(), existing)) !== undefined);
  if (page.read < limit) await deleteItem(keys.notificationPolicy(accountId), z.unknown());
  return page;
}

/** A page of the account's uploads still stored (GSI1 `UPLOADS#`; uploads made before that index are not in it). */
export const uploadsPage = (accountId: string, limit: number): Promise<Media[]> => indexPage(gsi1.uploadsPartition(accountId), limit, mediaItem);

/** Removes an upload's item (its files are the caller's to remove first); false when it was gone already. */
export const deleteUpload = async (media: Pick<Media, 'id'>): Promise<boolean> => (await deleteItem(keys.media(media.id), z.unknown(), existing)) !== undefined;

