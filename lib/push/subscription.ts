// The Web Push subscription of an access token, as Mastodon's
// Api::V1::Push::SubscriptionsController keeps it: one per token, a new POST
// replaces the old one, PUT replaces only the alerts (and the policy when
// given; never `standard`, which only a new POST sets), GET and PUT answer 404
// without one, DELETE answers {} either way.
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import type { Account } from '../db/accounts';
import {
  alertsItem,
  deletePushSubscription,
  pushPolicies,
  pushSubscriptionOf,
  savePushSubscription,
  updatePushAlerts,
  type Alerts,
  type PushSubscription,
} from '../db/push_subscriptions';
import { nowIso } from '../db/table';
import type { Token } from '../db/tokens';
import { notFound, unauthorized, unprocessable } from '../errors';
import { booleanish } from '../schema';
import { newId } from '../ids';
import { checkEndpoint, EndpointRefused, MAX_ENDPOINT_LENGTH } from './endpoint';
import { sealToken } from './seal';

// ---- input ----

/**
 * Strict base64 or base64url (padding optional). A `+` sent unencoded in a
 * form body arrives as a space; no valid key contains one, so it is read back.
 */
export function decodeBase64(value: string): Buffer | undefined {
  const text = value.trim().replace(/ /g, '+');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) return undefined;
  return Buffer.from(bare.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
}

/** An uncompressed P-256 point (65 bytes, 0x04 prefix) that lies on the curve. */
export function isP256Point(bytes: Buffer): boolean {
  if (bytes.length !== 65 || bytes[0] !== 0x04) return false;
  try {
    const jwk = { kty: 'EC', crv: 'P-256', x: bytes.subarray(1, 33).toString('base64url'), y: bytes.subarray(33).toString('base64url') };
    createPublicKey({ key: jwk, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}

const keyString = z.string({ invalid_type_error: 'must be a string' }).max(200, 'is too long (maximum is 200 characters)');

/** Stored and handed to web-push as unpadded base64url. */
const p256dhKey = keyString.transform((value, ctx) => {
  const bytes = decodeBase64(value);
  if (!bytes) return (ctx.addIssue({ code: 'custom', message: 'must be Base64 or Base64url' }), z.NEVER);
  if (!isP256Point(bytes)) return (ctx.addIssue({ code: 'custom', message: 'must be an uncompressed P-256 (prime256v1) public key' }), z.NEVER);
  return bytes.toString('base64url');
});

const authSecret = keyString.transform((value, ctx) => {
  const bytes = decodeBase64(value);
  if (!bytes) return (ctx.addIssue({ code: 'custom', message: 'must be Base64 or Base64url' }), z.NEVER);
  if (bytes.length !== 16) return (ctx.addIssue({ code: 'custom', message: 'must be 16 bytes' }), z.NEVER);
  return bytes.toString('base64url');
});

/** `data[alerts][...]`: the kinds this server notifies about; others a client sends are ignored, as Rails' permit does. */
const alertsInput = z.object({
  follow: booleanish.optional(),
  follow_request: booleanish.optional(),
  favourite: booleanish.optional(),
  reblog: booleanish.optional(),
  mention: booleanish.optional(),
  status: booleanish.optional(),
  update: booleanish.optional(),
  poll: booleanish.optional(),
  quote: booleanish.optional(),
  quoted_update: booleanish.optional(),
  'admin.sign_up': booleanish.optional(),
  'admin.report': booleanish.optional(),
});

export const policyInput = z.enum(pushPolicies, { errorMap: () => ({ message: `must be one of ${pushPolicies.join(', ')}` }) });

export const dataInput = z
  .object({ alerts: alertsInput.nullish(), policy: policyInput.optional() })
  .nullish();

// Rails' boolean cast (ActiveModel::Type::Boolean): these are false, any other scalar is true.
const RAILS_FALSE = new Set<unknown>([false, 0, '0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/**
 * `subscription[standard]` (Mastodon 4.4) read as Mastodon reads it, never
 * refused: absent or null is false (the controller's `|| false`), and "yes",
 * "no" or "True" are all true, as Rails casts them. A list or object is what
 * Rails' permit drops, so false. An empty string is false here; Mastodon casts
 * it to nil and fails to store it (a 500), which is no answer to copy.
 */
export const standardInput = z.unknown().transform((value) => {
  if (value === undefined || value === null || value === '' || typeof value === 'object') return false;
  return !RAILS_FALSE.has(value);
});

export const subscriptionInput = z.object({
  endpoint: z.string({ invalid_type_error: 'must be a string' }).min(1, "can't be blank").max(MAX_ENDPOINT_LENGTH, `is too long (maximum is ${MAX_ENDPOINT_LENGTH} characters)`),
  keys: z.object({ p256dh: p256dhKey, auth: authSecret }),
  standard: standardInput,
});

type DataInput = z.infer<typeof dataInput>;

/** Alerts as given; the ones not given are off (Mastodon keeps only what was sent, and absent means off). */
const alertsFrom = (data: DataInput): Alerts => alertsItem.parse(data?.alerts ?? {});

// ---- the four operations ----

export type Caller = { account: Account; token: Token; rawToken: string | undefined };

export async function subscribe(
  caller: Caller,
  input: { subscription: z.infer<typeof subscriptionInput>; data?: DataInput; policy?: z.infer<typeof policyInput> },
): Promise<PushSubscription> {
  try {
    // The form only (lib/push/endpoint.ts): where it points is checked when a push is sent.
    await checkEndpoint(input.subscription.endpoint);
  } catch (err) {
    if (err instanceof EndpointRefused) throw unprocessable(`Validation failed: subscription.endpoint ${err.reason}`);
    throw err;
  }
  const { account, token } = caller;
  const sub: PushSubscription = {
    id: newId(),
    accountId: account.id,
    tokenId: token.id,
    endpoint: input.subscription.endpoint,
    p256dh: input.subscription.keys.p256dh,
    auth: input.subscription.keys.auth,
    alerts: alertsFrom(input.data),
    // Mastodon reads `data[policy]`; masto.js sends `policy` beside `data`.
    policy: input.data?.policy ?? input.policy ?? 'all',
    standard: input.subscription.standard,
    sealedToken: caller.rawToken ? sealToken(caller.rawToken, tokenBinding(account.id, token.id)) : null,
    createdAt: nowIso(),
  };
  // The token was revoked between authentication and this write: nothing is stored.
  if (!(await savePushSubscription(sub, token.tokenHash))) throw unauthorized();
  return sub;
}

export async function currentSubscription(caller: Pick<Caller, 'account' | 'token'>): Promise<PushSubscription> {
  const sub = await pushSubscriptionOf(caller.account.id, caller.token.id);
  if (!sub) throw notFound();
  return sub;
}

export async function changeAlerts(
  caller: Pick<Caller, 'account' | 'token'>,
  input: { data?: DataInput; policy?: z.infer<typeof policyInput> },
): Promise<PushSubscription> {
  const policy = input.data?.policy ?? input.policy;
  const sub = await updatePushAlerts(caller.account.id, caller.token.id, alertsFrom(input.data), policy, nowIso());
  if (!sub) throw notFound();
  return sub;
}

export async function unsubscribe(caller: Pick<Caller, 'account' | 'token'>): Promise<void> {
  await deletePushSubscription(caller.account.id, caller.token.id);
}

/** What a sealed token is bound to: its subscription's account and token. */
export const tokenBinding = (accountId: string, tokenId: string) => `${accountId}:${tokenId}`;
