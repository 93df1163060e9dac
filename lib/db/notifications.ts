// Notifications: one item per notification under the recipient's partition,
// ordered by id (newest last in key order), plus a "once" item per
// (recipient, type, actor, status) that keeps a redelivered queue message or a
// repeated action from notifying twice. Both are written and removed together.
// A notification of a groupable kind stores its Mastodon 4.3 group key, and GSI1
// lists a group's notifications (lib/notifications/groups.ts decides the keys).
import { z } from 'zod';
import type { IdRange, Page } from '../paging';
import { idRangeKeyCondition } from './id_range';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { batchWrite, deleteItem, expiresIn, getItem, query, transact, type Item, type TransactItem } from './table';

export const notificationTypes = ['mention', 'status', 'reblog', 'favourite', 'follow', 'follow_request', 'poll', 'update', 'admin.sign_up', 'admin.report', 'moderation_warning', 'quote', 'quoted_update', 'added_to_collection', 'collection_update'] as const;
export type NotificationType = (typeof notificationTypes)[number];

/** Types told to moderators (Mastodon's admin.*): a new local sign-up, a new report (the notification carries its `reportId`). */
export const staffTypes: readonly NotificationType[] = ['admin.sign_up', 'admin.report'];

/** Types whose notification carries the collection it is about (Mastodon 4.6's `collection_type?`). */
export const collectionTypes: readonly NotificationType[] = ['added_to_collection', 'collection_update'];

/** Types whose notification carries the status it is about (Mastodon's `status_type?`). */
export const statusTypes: readonly NotificationType[] = ['mention', 'status', 'reblog', 'favourite', 'poll', 'update', 'quote', 'quoted_update'];

export const notificationItem = z.object({
  id: z.string(),
  type: z.enum(notificationTypes),
  /** The recipient. */
  accountId: z.string(),
  /** The actor (for `poll`: the poll's author). */
  fromAccountId: z.string(),
  statusId: z.string().nullable().default(null),
  /** The report an `admin.report` notification is about. */
  reportId: z.string().optional(),
  createdAt: z.string(),
  /** Mastodon 4.3's group key, stored since grouped notifications; older notifications derive theirs on read. */
  groupKey: z.string().optional(),
  /** Held back by the recipient's notification policy (lib/notifications/policy.ts): listed only on request, never grouped. */
  filtered: z.boolean().optional(),
  /** A `moderation_warning`: the strike it tells of (lib/db/strikes.ts). */
  strikeId: z.string().optional(),
  /** `added_to_collection` and `collection_update` (Mastodon 4.6): the collection they are about. */
  collectionId: z.string().optional(),
  /**
   * What a collection notification stands for, as Mastodon's activity_id: the item for `added_to_collection`, one
   * id per change for `collection_update` (each change notifies once, however often its message is delivered).
   */
  activityId: z.string().optional(),
});
export type Notification = z.infer<typeof notificationItem>;

// An admin.report notification is once per report (the same reporter may file several): the report stands in the status's place.
export const onceKey = (n: Pick<Notification, 'accountId' | 'type' | 'fromAccountId' | 'statusId' | 'reportId' | 'activityId'>) =>
  keys.notificationOnce(n.accountId, n.type, n.fromAccountId, n.statusId ?? n.reportId ?? n.activityId ?? null);

/**
 * The de-duplication item, which also lists the notification under its sender (GSI1 `NOTIFS_FROM#`): what the purge
 * of the sender's account reads to remove the notifications it caused (lib/db/account_purge.ts).
 */
export const onceRecord = (n: Notification) => ({
  ...onceKey(n),
  ...gsi1.notificationSent(n.fromAccountId, n.id),
  notificationId: n.id,
  accountId: n.accountId,
  fromAccountId: n.fromAccountId,
});

export const notificationRecord = (n: Notification) => ({
  ...keys.notification(n.accountId, n.id),
  ...(n.filtered ? gsi1.filteredNotification(n.accountId, n.fromAccountId, n.id) : n.groupKey ? gsi1.notificationGroupMember(n.accountId, n.groupKey, n.id) : {}),
  ...notificationItem.parse(n),
});

/** Where a recipient's current group of one kind started (an hour since the epoch), as notificationGroupBucket keeps it. */
export type GroupBucket = { prefix: string; hour: number };

const BUCKET_TTL_SECONDS = 12 * 3600;

/** The hour the recipient's current group of this kind started in, if one started in the last 12 hours. */
export async function groupBucketOf(accountId: string, prefix: string): Promise<number | undefined> {
  const item = await getItem(keys.notificationGroupBucket(accountId, prefix), z.object({ hour: z.number().int() }));
  return item?.hour;
}

/**
 * Writes a notification unless one for the same (recipient, type, actor, status)
 * exists. Answers false, having written nothing, when it does. `also` are written
 * in the same transaction (a filtered notification's count in its request).
 */
export async function createNotification(n: Notification, bucket?: GroupBucket, also: TransactItem[] = []): Promise<boolean> {
  const result = await transact([
    { Put: { Item: onceRecord(n), ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: notificationRecord(n), ConditionExpression: 'attribute_not_exists(PK)' } },
    // The group's bucket moves with the notification that joins it, so a duplicate never moves it.
    ...(bucket ? [{ Put: { Item: { ...keys.notificationGroupBucket(n.accountId, bucket.prefix), hour: bucket.hour, expiresAt: expiresIn(BUCKET_TTL_SECONDS) } } }] : []),
    ...also,
  ]);
  return result.ok;
}

export const notificationOf = (accountId: string, id: string) => getItem(keys.notification(accountId, id), notificationItem);

/** Removes one of the account's notifications; answers it, or undefined when the account has none with that id. */
export async function deleteNotification(accountId: string, id: string): Promise<Notification | undefined> {
  const removed = await deleteItem(keys.notification(accountId, id), notificationItem, { ConditionExpression: 'attribute_exists(PK)' });
  if (removed) await deleteItem(onceKey(removed), z.unknown());
  return removed;
}

/** Removes every notification of the account, a Query page at a time (each page one chunked BatchWrite). */
export async function clearNotifications(accountId: string): Promise<number> {
  let removed = 0;
  let start: Item | undefined;
  do {
    const page = await query(
      {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.notificationsPartition(accountId) },
        ExclusiveStartKey: start,
      },
      notificationItem,
    );
    await batchWrite([], page.items.flatMap((n) => [keys.notification(accountId, n.id), onceKey(n)]));
    removed += page.items.length;
    start = page.lastKey;
  } while (start);
  return removed;
}

export type NotificationFilter = {
  /** Types to include (already narrowed by `types[]` and `exclude_types[]`). */
  types: readonly NotificationType[];
  fromAccountId?: string;
  /** Lists the notifications the recipient's policy filtered too (v2's `include_filtered`). */
  includeFiltered?: boolean;
};

/**
 * One page of the account's notifications, newest first. `max_id` bounds from
 * above, `min_id` (else `since_id`) from below; with `min_id` the page is the one
 * immediately newer (read ascending, then reversed). Type and actor filters run
 * server-side; the Query continues until the page is full or the partition ends.
 */
/** The Query input of a range of the account's notifications with the type and actor filters; undefined when nothing can match. */
function filteredRangeQuery(accountId: string, page: IdRange, filter: NotificationFilter) {
  if (filter.types.length === 0) return undefined;
  const range = idRangeKeyCondition({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.notificationsPartition(accountId) }, page);
  if (!range) return undefined;
  const values: Record<string, unknown> = { ...range.ExpressionAttributeValues };

  const filters: string[] = [];
  const names: Record<string, string> = {};
  if (filter.types.length < notificationTypes.length) {
    names['#type'] = 'type';
    filter.types.forEach((t, i) => (values[`:t${i}`] = t));
    filters.push(`#type IN (${filter.types.map((_t, i) => `:t${i}`).join(', ')})`);
  }
  if (filter.fromAccountId !== undefined) {
    filters.push('fromAccountId = :from');
    values[':from'] = filter.fromAccountId;
  }
  if (!filter.includeFiltered) filters.push('attribute_not_exists(filtered)');
  return {
    KeyConditionExpression: range.KeyConditionExpression,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
    ScanIndexForward: range.ScanIndexForward,
  };
}

export async function notificationsPage(accountId: string, page: Page, filter: NotificationFilter): Promise<Notification[]> {
  const input = filteredRangeQuery(accountId, page, filter);
  if (!input) return [];

  const out: Notification[] = [];
  let start: Item | undefined;
  do {
    const res = await query(
      {
        ...input,
        Limit: page.limit,
        ExclusiveStartKey: start,
      },
      notificationItem,
    );
    out.push(...res.items);
    start = res.lastKey;
  } while (start && out.length < page.limit);
  const items = out.slice(0, page.limit);
  return input.ScanIndexForward ? items.reverse() : items;
}

/** How far a window read goes: items per Query, and Queries at most. */
export type WindowBudget = { chunk: number; maxCalls: number };

/**
 * The account's notifications in a range, read in the range's direction (newest
 * first, or oldest first from `min_id`) a Query at a time until `enough` says the
 * items read so far suffice, the range ends, or the budget is spent. Answers them
 * in read order, with whether the range was read to its end.
 */
export async function notificationsWindow(
  accountId: string,
  range: IdRange,
  filter: NotificationFilter,
  enough: (readSoFar: Notification[]) => boolean,
  budget: WindowBudget,
): Promise<{ items: Notification[]; complete: boolean }> {
  const input = filteredRangeQuery(accountId, range, filter);
  if (!input) return { items: [], complete: true };
  const items: Notification[] = [];
  let start: Item | undefined;
  let calls = 0;
  do {
    const res = await query({ ...input, Limit: budget.chunk, ExclusiveStartKey: start }, notificationItem);
    calls++;
    items.push(...res.items);
    start = res.lastKey;
  } while (start && calls < budget.maxCalls && !enough(items));
  return { items, complete: start === undefined };
}

/** The notifications stored under one group key, newest first, within an id range (GSI1; one Query per page of the index). */
export async function groupMembers(accountId: string, groupKey: string, range: IdRange & { limit?: number } = {}): Promise<Notification[]> {
  const condition = idRangeKeyCondition({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.notificationGroupPartition(accountId, groupKey) }, range);
  if (!condition) return [];
  const out: Notification[] = [];
  let start: Item | undefined;
  do {
    const res = await query({ ...condition, ...(range.limit ? { Limit: range.limit - out.length } : {}), ExclusiveStartKey: start }, notificationItem);
    out.push(...res.items);
    start = res.lastKey;
  } while (start && (range.limit === undefined || out.length < range.limit));
  return condition.ScanIndexForward ? out.reverse() : out;
}

/**
 * The account's notifications of one type (and status) between two ids, newest
 * first: the members a group key names among notifications stored before group
 * keys were (they are not in GSI1). The range spans the group's hours only.
 */
export async function notificationsOfKindBetween(accountId: string, type: NotificationType, statusId: string | null, range: IdRange): Promise<Notification[]> {
  const input = filteredRangeQuery(accountId, range, { types: [type] });
  if (!input) return [];
  const values = { ...input.ExpressionAttributeValues, ...(statusId ? { ':status': statusId } : {}) };
  const out: Notification[] = [];
  let start: Item | undefined;
  do {
    const res = await query(
      {
        ...input,
        FilterExpression: [input.FilterExpression, statusId ? 'statusId = :status' : undefined, 'attribute_not_exists(groupKey)'].filter(Boolean).join(' AND '),
        ExpressionAttributeValues: values,
        ExclusiveStartKey: start,
      },
      notificationItem,
    );
    out.push(...res.items);
    start = res.lastKey;
  } while (start);
  return out;
}

/** Removes these notifications of the account (and their de-duplication items): one chunked BatchWrite. */
export async function deleteNotifications(accountId: string, notifications: Notification[]): Promise<void> {
  if (notifications.length === 0) return;
  await batchWrite([], notifications.flatMap((n) => [keys.notification(accountId, n.id), onceKey(n)]));
}
