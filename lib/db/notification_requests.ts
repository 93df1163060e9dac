// Mastodon 4.3's notification policy and notification requests, as stored here:
// the policy is one item per recipient (absent until first set); a request is
// one item per (recipient, sender), counting the sender's filtered
// notifications and listed by request id through GSI1; accepting a request
// leaves a permission item per (recipient, sender) so that the sender's later
// notifications are never filtered. Filtered notifications themselves stay in
// the recipient's notification partition (lib/db/notifications.ts), indexed in
// GSI1 under (recipient, sender) so that accepting or dismissing reads only them.
import { z } from 'zod';
import { newId } from '../ids';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { notificationItem, type Notification } from './notifications';
import { deleteItem, getItem, nowIso, putItem, query, queryAll, updateItem, type Item, type TransactItem } from './table';

export const policyActions = ['accept', 'filter', 'drop'] as const;
export type PolicyAction = (typeof policyActions)[number];

/** The criteria a policy decides on, in Mastodon's attribute names without `for_` (4.3's five, and 4.6's `bots`). */
export const policyCriteria = ['notFollowing', 'notFollowers', 'newAccounts', 'privateMentions', 'limitedAccounts', 'bots'] as const;
export type PolicyCriterion = (typeof policyCriteria)[number];

export const notificationPolicyItem = z.object({
  notFollowing: z.enum(policyActions).default('accept'),
  notFollowers: z.enum(policyActions).default('accept'),
  newAccounts: z.enum(policyActions).default('accept'),
  privateMentions: z.enum(policyActions).default('accept'),
  // Mastodon 4.3's one default that is not `accept`: a limited (silenced) account's notifications to those who
  // do not follow it are filtered.
  limitedAccounts: z.enum(policyActions).default('filter'),
  /** Mastodon 4.6: automated accounts (`bot`) the recipient does not follow. */
  bots: z.enum(policyActions).default('accept'),
  updatedAt: z.string().optional(),
});
export type NotificationPolicy = z.infer<typeof notificationPolicyItem>;

/** The policy of an account that never set one: every criterion accepted but limited accounts, filtered (Mastodon 4.3). */
export const UNSET_POLICY: NotificationPolicy = notificationPolicyItem.parse({});

/** The recipient's stored policy, or undefined when it never set one (one GetItem). */
export const storedPolicyOf = (accountId: string) => getItem(keys.notificationPolicy(accountId), notificationPolicyItem);

export async function savePolicy(accountId: string, policy: NotificationPolicy): Promise<void> {
  await putItem({ ...keys.notificationPolicy(accountId), ...notificationPolicyItem.parse(policy), updatedAt: nowIso() });
}

export const notificationRequestItem = z.object({
  id: z.string(),
  /** The recipient. */
  accountId: z.string(),
  /** The sender whose notifications were filtered. */
  fromAccountId: z.string(),
  /** The sender's status of the newest filtered mention, if any. */
  lastStatusId: z.string().nullable().default(null),
  notificationsCount: z.number().int().default(0),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type NotificationRequest = z.infer<typeof notificationRequestItem>;

/**
 * The transaction item that counts a filtered notification into its sender's
 * request, creating the request on the first one (the id and creation time are
 * kept once set). It goes in the notification's own transaction, so a redelivered
 * message never counts twice and a counted notification always exists.
 */
export function requestCountUpdate(n: Notification): TransactItem {
  const id = newId();
  const listed = gsi1.notificationRequest(n.accountId, id);
  // The request's last status is the sender's own: a mention's (a favourite's status is the recipient's).
  const lastStatusId = n.type === 'mention' ? n.statusId : null;
  const now = nowIso();
  return {
    Update: {
      Key: keys.notificationRequest(n.accountId, n.fromAccountId),
      UpdateExpression: [
        'SET #id = if_not_exists(#id, :id), accountId = :account, fromAccountId = :from',
        'createdAt = if_not_exists(createdAt, :now), updatedAt = :now',
        'GSI1PK = :gpk, GSI1SK = if_not_exists(GSI1SK, :gsk)',
        ...(lastStatusId ? ['lastStatusId = :status'] : []),
      ].join(', ') + ' ADD notificationsCount :one',
      ExpressionAttributeNames: { '#id': 'id' },
      ExpressionAttributeValues: {
        ':id': id,
        ':account': n.accountId,
        ':from': n.fromAccountId,
        ':now': now,
        ':gpk': listed.GSI1PK,
        ':gsk': listed.GSI1SK,
        ':one': 1,
        ...(lastStatusId ? { ':status': lastStatusId } : {}),
      },
    },
  };
}

/** A page of the recipient's requests by request id, newest first (one Query of GSI1). */
export const requestsPage = (accountId: string, page: Page): Promise<NotificationRequest[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.notificationRequestsPartition(accountId) }, page, notificationRequestItem);

/** One of the recipient's requests by its id, or undefined (one Query of the recipient's GSI1 partition: nobody else's request can answer). */
export async function requestOf(accountId: string, requestId: string): Promise<NotificationRequest | undefined> {
  const listed = gsi1.notificationRequest(accountId, requestId);
  const res = await query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p AND GSI1SK = :s',
      ExpressionAttributeValues: { ':p': listed.GSI1PK, ':s': listed.GSI1SK },
    },
    notificationRequestItem,
  );
  return res.items[0];
}

/** Removes a request; answers false when it was already gone. */
export async function deleteRequest(request: Pick<NotificationRequest, 'accountId' | 'fromAccountId'>): Promise<boolean> {
  const removed = await deleteItem(keys.notificationRequest(request.accountId, request.fromAccountId), z.unknown(), { ConditionExpression: 'attribute_exists(PK)' });
  return removed !== undefined;
}

/** A policy with what it holds back: the NotificationPolicy entity's content. */
export type PolicyView = { policy: NotificationPolicy; summary: { requests: number; notifications: number } };

/** Mastodon's MAX_MEANINGFUL_COUNT: the summary counts requests up to this many. */
export const MAX_MEANINGFUL_COUNT = 100;

/** How many requests the recipient has (up to 100) and how many notifications they hold (one Query of GSI1, counts only). */
export async function pendingSummary(accountId: string): Promise<{ requests: number; notifications: number }> {
  const res = await query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.notificationRequestsPartition(accountId) },
      ProjectionExpression: 'notificationsCount',
      Limit: MAX_MEANINGFUL_COUNT,
    },
    z.object({ notificationsCount: z.number().int().default(0) }),
  );
  return { requests: res.items.length, notifications: res.items.reduce((sum, r) => sum + r.notificationsCount, 0) };
}

/** Has the recipient accepted this sender's request (Mastodon's NotificationPermission)? One GetItem. */
export async function senderPermitted(accountId: string, fromAccountId: string): Promise<boolean> {
  return (await getItem(keys.notificationPermission(accountId, fromAccountId), z.unknown())) !== undefined;
}

export async function permitSender(accountId: string, fromAccountId: string): Promise<void> {
  await putItem({ ...keys.notificationPermission(accountId, fromAccountId), createdAt: nowIso() });
}

/** Every notification of the recipient filtered from this sender, oldest first (Query GSI1, page by page). */
export const filteredNotificationsFrom = (accountId: string, fromAccountId: string): Promise<Notification[]> =>
  queryAll(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.filteredNotificationsPartition(accountId, fromAccountId) },
    },
    notificationItem,
  );

/** How many unfilter updates run at once. */
const UNFILTER_CONCURRENCY = 10;

/**
 * Turns filtered notifications into normal ones: one conditional UpdateItem each, so
 * a notification dismissed meanwhile stays dismissed rather than being written back.
 */
export async function unfilterNotifications(notifications: Notification[]): Promise<void> {
  for (let i = 0; i < notifications.length; i += UNFILTER_CONCURRENCY) {
    await Promise.all(
      notifications.slice(i, i + UNFILTER_CONCURRENCY).map((n) =>
        updateItem(
          {
            Key: keys.notification(n.accountId, n.id),
            UpdateExpression: 'REMOVE filtered, GSI1PK, GSI1SK',
            ConditionExpression: 'attribute_exists(PK)',
          },
          z.unknown() as z.ZodType<Item | undefined>,
        ),
      ),
    );
  }
}
