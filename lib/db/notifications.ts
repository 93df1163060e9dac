// Notifications: one item per notification under the recipient's partition,
// ordered by id (newest last in key order), plus a "once" item per
// (recipient, type, actor, status) that keeps a redelivered queue message or a
// repeated action from notifying twice. Both are written and removed together.
import { z } from 'zod';
import type { Page } from '../paging';
import { idRangeKeyCondition } from './id_range';
import { keys } from './keys';
import { batchWrite, deleteItem, getItem, query, transact, type Item } from './table';

export const notificationTypes = ['mention', 'reblog', 'favourite', 'follow', 'follow_request', 'poll', 'update'] as const;
export type NotificationType = (typeof notificationTypes)[number];

/** Types whose notification carries the status it is about (Mastodon's `status_type?`). */
export const statusTypes: readonly NotificationType[] = ['mention', 'reblog', 'favourite', 'poll', 'update'];

export const notificationItem = z.object({
  id: z.string(),
  type: z.enum(notificationTypes),
  /** The recipient. */
  accountId: z.string(),
  /** The actor (for `poll`: the poll's author). */
  fromAccountId: z.string(),
  statusId: z.string().nullable().default(null),
  createdAt: z.string(),
});
export type Notification = z.infer<typeof notificationItem>;

const onceKey = (n: Pick<Notification, 'accountId' | 'type' | 'fromAccountId' | 'statusId'>) =>
  keys.notificationOnce(n.accountId, n.type, n.fromAccountId, n.statusId);

export const notificationRecord = (n: Notification) => ({ ...keys.notification(n.accountId, n.id), ...notificationItem.parse(n) });

/**
 * Writes a notification unless one for the same (recipient, type, actor, status)
 * exists. Answers false, having written nothing, when it does.
 */
export async function createNotification(n: Notification): Promise<boolean> {
  const result = await transact([
    { Put: { Item: { ...onceKey(n), notificationId: n.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: notificationRecord(n), ConditionExpression: 'attribute_not_exists(PK)' } },
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
};

/**
 * One page of the account's notifications, newest first. `max_id` bounds from
 * above, `min_id` (else `since_id`) from below; with `min_id` the page is the one
 * immediately newer (read ascending, then reversed). Type and actor filters run
 * server-side; the Query continues until the page is full or the partition ends.
 */
export async function notificationsPage(accountId: string, page: Page, filter: NotificationFilter): Promise<Notification[]> {
  if (filter.types.length === 0) return [];
  const range = idRangeKeyCondition({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.notificationsPartition(accountId) }, page);
  if (!range) return [];
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

  const out: Notification[] = [];
  let start: Item | undefined;
  do {
    const res = await query(
      {
        KeyConditionExpression: range.KeyConditionExpression,
        ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: range.ScanIndexForward,
        Limit: page.limit,
        ExclusiveStartKey: start,
      },
      notificationItem,
    );
    out.push(...res.items);
    start = res.lastKey;
  } while (start && out.length < page.limit);
  const items = out.slice(0, page.limit);
  return range.ScanIndexForward ? items.reverse() : items;
}
