// Web Push subscriptions: at most one per access token, stored under the
// token's account (PK) by the token's id (SK), so the push worker reads all of
// an account's subscriptions with one Query and an endpoint finds its caller's
// with one GetItem. Writing one checks, in the same transaction, that the token
// still exists, so a revocation racing a subscription cannot leave one behind.
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, getItem, query, queryAll, transact, updateItem } from './table';

/** Mastodon 3.4+ `data[policy]`: whose notifications are pushed. */
export const pushPolicies = ['all', 'followed', 'follower', 'none'] as const;
export type PushPolicy = (typeof pushPolicies)[number];

/** Alert kinds a subscription can ask for: the notification types this server produces (Mastodon 3.5 names); off unless asked. */
const off = () => z.boolean().default(false);
export const alertsItem = z.object({
  follow: off(),
  follow_request: off(),
  favourite: off(),
  reblog: off(),
  mention: off(),
  // Posts of accounts followed with the bell (`notify`), and edits of statuses one interacted with.
  status: off(),
  update: off(),
  poll: off(),
  // Quotes of one's statuses, and edits of statuses one quoted (Mastodon 4.5).
  quote: off(),
  quoted_update: off(),
  // The staff's notifications (a moderator's app asks for them; nobody else receives such notifications).
  'admin.sign_up': off(),
  'admin.report': off(),
});
export type Alerts = z.infer<typeof alertsItem>;

export const pushSubscriptionItem = z.object({
  id: z.string(),
  accountId: z.string(),
  /** The access token it belongs to (its id; the token item is keyed by hash). */
  tokenId: z.string(),
  endpoint: z.string(),
  /** The subscriber's P-256 public key (uncompressed point) and auth secret, base64url. */
  p256dh: z.string(),
  auth: z.string(),
  alerts: alertsItem,
  policy: z.enum(pushPolicies).default('all'),
  /**
   * Mastodon 4.4 `subscription[standard]`: RFC 8291 aes128gcm with RFC 8292
   * VAPID; otherwise the legacy aesgcm draft, which older clients (and every
   * subscription stored before the field existed) decrypt.
   */
  standard: z.boolean().default(false),
  /** The raw access token sealed for the payload's `access_token` (lib/push/seal.ts). */
  sealedToken: z.string().nullable().default(null),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
});
export type PushSubscription = z.infer<typeof pushSubscriptionItem>;
/** What a writer gives: the defaulted fields may be left out. */
export type NewPushSubscription = z.input<typeof pushSubscriptionItem>;

export const pushSubscriptionRecord = (sub: NewPushSubscription) => ({
  ...keys.pushSubscription(sub.accountId, sub.tokenId),
  ...pushSubscriptionItem.parse(sub),
});

export const pushSubscriptionOf = (accountId: string, tokenId: string) =>
  getItem(keys.pushSubscription(accountId, tokenId), pushSubscriptionItem, true);

/**
 * Writes the token's subscription, replacing any it had, provided the token
 * (by hash) still exists and is that account's. False, having written nothing,
 * when it does not.
 */
export async function savePushSubscription(sub: NewPushSubscription, tokenHash: string): Promise<boolean> {
  const result = await transact([
    {
      ConditionCheck: {
        Key: keys.token(tokenHash),
        ConditionExpression: 'attribute_exists(PK) AND accountId = :a AND id = :t',
        ExpressionAttributeValues: { ':a': sub.accountId, ':t': sub.tokenId },
      },
    },
    { Put: { Item: pushSubscriptionRecord(sub) } },
  ]);
  return result.ok;
}

/** Replaces the alerts (and the policy, when given) of the token's subscription; undefined when it has none. */
export const updatePushAlerts = (accountId: string, tokenId: string, alerts: Alerts, policy: PushPolicy | undefined, at: string) =>
  updateItem(
    {
      Key: keys.pushSubscription(accountId, tokenId),
      UpdateExpression: `SET alerts = :alerts, updatedAt = :at${policy ? ', #policy = :policy' : ''}`,
      ConditionExpression: 'attribute_exists(PK)',
      ...(policy ? { ExpressionAttributeNames: { '#policy': 'policy' } } : {}),
      ExpressionAttributeValues: { ':alerts': alerts, ':at': at, ...(policy ? { ':policy': policy } : {}) },
    },
    pushSubscriptionItem,
  );

/**
 * Removes the token's subscription. With `onlyId`, only if it is still that
 * subscription (a worker dropping a dead endpoint must not remove a newer one).
 */
export const deletePushSubscription = (accountId: string, tokenId: string, onlyId?: string) =>
  deleteItem(
    keys.pushSubscription(accountId, tokenId),
    pushSubscriptionItem,
    onlyId ? { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': onlyId } } : undefined,
  );

/** Every subscription of the account (all pages). */
export const pushSubscriptionsOf = (accountId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.pushSubscriptionsPartition(accountId) } }, pushSubscriptionItem);

/** Does the account have any subscription? One key-only read of at most one item. */
export async function hasPushSubscriptions(accountId: string): Promise<boolean> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.pushSubscriptionsPartition(accountId) },
      ProjectionExpression: 'PK',
      Limit: 1,
    },
    z.object({ PK: z.string() }),
  );
  return page.items.length > 0;
}
