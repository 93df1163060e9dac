// Scheduled statuses: the item under its owner (their list) and a due-index
// entry (one partition ordered by due time) that the sweeper reads. Media
// attachments are reserved for a scheduled status by setting their statusId to
// its id, and handed over to the published status in the posting transaction.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { attachMediaItems } from './media';
import { deleteItem, getItem, query, transact, type TransactItem } from './table';
import { quotePolicies, visibilities } from './statuses';

export const scheduledParams = z.object({
  text: z.string().nullable(),
  poll: z
    .object({ options: z.array(z.string()), expires_in: z.number().int(), multiple: z.boolean(), hide_totals: z.boolean() })
    .nullable(),
  media_ids: z.array(z.string()).nullable(),
  sensitive: z.boolean().nullable(),
  visibility: z.enum(visibilities).nullable(),
  idempotency: z.string().nullable(),
  scheduled_at: z.string().nullable(),
  spoiler_text: z.string().nullable(),
  in_reply_to_id: z.string().nullable(),
  language: z.string().nullable().default(null),
  /** The status it will quote (Mastodon 4.4 keeps it in the params), checked again when posted. */
  quoted_status_id: z.string().nullable().default(null),
  quote_approval_policy: z.enum(quotePolicies).nullable().default(null),
});
export type ScheduledParams = z.infer<typeof scheduledParams>;

export const scheduledItem = z.object({
  id: z.string(),
  accountId: z.string(),
  scheduledAt: z.string(),
  params: scheduledParams,
  /** The posting application, as the published status will name it. */
  appName: z.string(),
  appWebsite: z.string().nullable().default(null),
  /** The posting application's id (a snowflake, kept as a string: beyond 2^53). */
  appId: z.string().nullable().default(null),
  createdAt: z.string(),
});
export type Scheduled = z.infer<typeof scheduledItem>;

export const scheduledDueItem = z.object({ id: z.string(), accountId: z.string(), scheduledAt: z.string() });
export type ScheduledDue = z.infer<typeof scheduledDueItem>;

const dueRecord = (s: Pick<Scheduled, 'id' | 'accountId' | 'scheduledAt'>) => ({
  ...keys.scheduledDue(s.scheduledAt, s.id),
  id: s.id,
  accountId: s.accountId,
  scheduledAt: s.scheduledAt,
});

export const scheduledById = (accountId: string, id: string, consistent = false) =>
  getItem(keys.scheduledStatus(accountId, id), scheduledItem, consistent);

/** Media reserved for (or attached to) `fromId` handed to `toId`; fails unless still the caller's and reserved for `fromId`. */
export const transferMediaItems = (fromId: string, toId: string, accountId: string, mediaIds: string[]): TransactItem[] =>
  mediaIds.map((id) => ({
    Update: {
      Key: keys.media(id),
      UpdateExpression: 'SET statusId = :to',
      ConditionExpression: 'attribute_exists(PK) AND accountId = :a AND statusId = :from',
      ExpressionAttributeValues: { ':to': toId, ':from': fromId, ':a': accountId },
    },
  }));

/** The scheduled item, its due entry; the attachment reservation entries come from the caller. */
export const putScheduledItems = (s: Scheduled): TransactItem[] => [
  { Put: { Item: { ...keys.scheduledStatus(s.accountId, s.id), ...scheduledItem.parse(s) }, ConditionExpression: 'attribute_not_exists(PK)' } },
  { Put: { Item: dueRecord(s) } },
];

/**
 * Stores a new scheduled status with its due entry, reserving its attachments
 * (attached to the scheduled status id, so no other status can take them) in
 * the same transaction; fails as `media-not-yours` when one is not the author's
 * unattached, processed attachment.
 */
export async function writeScheduled(s: Scheduled, mediaIds: string[]): Promise<{ ok: true } | { failed: 'media-not-yours' }> {
  const items = putScheduledItems(s);
  const mediaAt = items.length;
  const result = await transact([...items, ...attachMediaItems(s.id, s.accountId, mediaIds)]);
  if (result.ok) return { ok: true };
  if (result.failed.some((i) => i >= mediaAt)) return { failed: 'media-not-yours' };
  throw new Error(`scheduling status ${s.id}: transaction condition failed at ${result.failed.join(',')}`);
}

/** Removes a due entry that no longer names a current scheduled status (published, cancelled or moved). */
export const removeDueEntry = async (scheduledAt: string, id: string): Promise<void> => {
  await deleteItem(keys.scheduledDue(scheduledAt, id), z.unknown());
};

/** Moves a scheduled status to a new time, only if it still exists at the time it was read with. */
export async function rescheduleItem(s: Scheduled, scheduledAt: string): Promise<boolean> {
  const result = await transact([
    {
      Update: {
        Key: keys.scheduledStatus(s.accountId, s.id),
        UpdateExpression: 'SET scheduledAt = :n',
        ConditionExpression: 'attribute_exists(PK) AND scheduledAt = :o',
        ExpressionAttributeValues: { ':n': scheduledAt, ':o': s.scheduledAt },
      },
    },
    { Delete: { Key: keys.scheduledDue(s.scheduledAt, s.id) } },
    { Put: { Item: dueRecord({ ...s, scheduledAt }) } },
  ]);
  return result.ok;
}

/**
 * The claim of a scheduled status: deletes it only while it is still due at the
 * time it was read with. In the posting transaction it makes publishing happen once.
 */
export const claimScheduledItems = (s: Scheduled): TransactItem[] => [
  {
    Delete: {
      Key: keys.scheduledStatus(s.accountId, s.id),
      ConditionExpression: 'attribute_exists(PK) AND scheduledAt = :t',
      ExpressionAttributeValues: { ':t': s.scheduledAt },
    },
  },
  { Delete: { Key: keys.scheduledDue(s.scheduledAt, s.id) } },
];

/** Removes a scheduled status (cancelled, or discarded when it can no longer be posted) and frees its attachments. */
export async function removeScheduled(s: Scheduled): Promise<boolean> {
  const mediaIds = s.params.media_ids ?? [];
  const result = await transact([
    ...claimScheduledItems(s),
    ...mediaIds.map(
      (id): TransactItem => ({
        Update: {
          Key: keys.media(id),
          UpdateExpression: 'SET statusId = :none',
          ConditionExpression: 'statusId = :s',
          ExpressionAttributeValues: { ':s': s.id, ':none': null },
        },
      }),
    ),
  ]);
  // An attachment no longer reserved (deleted meanwhile) must not keep the scheduled status alive.
  if (!result.ok && !result.failed.includes(0)) {
    const retry = await transact(claimScheduledItems(s));
    return retry.ok;
  }
  return result.ok;
}

/** One page of an account's scheduled statuses, newest id first (Mastodon orders by id). */
export const scheduledOf = (accountId: string, page: Page): Promise<Scheduled[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.scheduledPartition(accountId) }, page, scheduledItem);

/** Due entries up to `now`, oldest first. */
export async function dueScheduled(now: number, limit: number): Promise<ScheduledDue[]> {
  const { items } = await query(
    {
      KeyConditionExpression: 'PK = :pk AND SK < :bound',
      ExpressionAttributeValues: { ':pk': keys.scheduledDuePartition(), ':bound': `${new Date(now).toISOString()}$` },
      Limit: limit,
    },
    scheduledDueItem,
  );
  return items;
}
