// Scheduled statuses: the item under its owner (their list) and a due-index
// entry (one partition ordered by due time) that the sweeper reads. Media
// attachments are reserved for a scheduled status by setting their statusId to
// its id, and handed over to the published status in the posting transaction.
import { z } from 'zod';
import { keys } from './keys';
import { getItem, query, transact, type TransactItem } from './table';
import { visibilities } from './statuses';

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

export type ScheduledPage = { max_id?: string; since_id?: string; min_id?: string; limit: number };

/** One page of an account's scheduled statuses, newest id first (Mastodon orders by id). */
export async function scheduledOf(accountId: string, page: ScheduledPage): Promise<Scheduled[]> {
  const pk = keys.scheduledPartition(accountId);
  const conds: string[] = ['PK = :pk'];
  const values: Record<string, unknown> = { ':pk': pk };
  const pad = (id: string) => keys.scheduledStatus(accountId, id).SK;
  const ascending = page.min_id !== undefined;
  const lower = page.min_id ?? page.since_id;
  if (page.max_id !== undefined && lower !== undefined) {
    // Nothing lies strictly between them; DynamoDB refuses a BETWEEN whose bounds are inverted.
    if (BigInt(lower) >= BigInt(page.max_id)) return [];
    conds.push('SK BETWEEN :lo AND :hi');
    // BETWEEN is inclusive: the bounds themselves are dropped below.
    values[':lo'] = pad(lower);
    values[':hi'] = pad(page.max_id);
  } else if (page.max_id !== undefined) {
    conds.push('SK < :hi');
    values[':hi'] = pad(page.max_id);
  } else if (lower !== undefined) {
    conds.push('SK > :lo');
    values[':lo'] = pad(lower);
  }
  const { items } = await query(
    {
      KeyConditionExpression: conds.join(' AND '),
      ExpressionAttributeValues: values,
      ScanIndexForward: ascending,
      Limit: page.limit + 2,
    },
    scheduledItem,
  );
  const kept = items.filter((s) => s.id !== page.max_id && s.id !== lower).slice(0, page.limit);
  return ascending ? kept.reverse() : kept;
}

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
