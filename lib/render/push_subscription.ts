// WebPushSubscription entity (https://docs.joinmastodon.org/entities/WebPushSubscription/): Mastodon 4.4's
// fields, in its serializer's order.
import type { PushSubscription } from '../db/push_subscriptions';
import { secrets } from '../secrets';

export function renderPushSubscription(sub: PushSubscription) {
  return {
    id: sub.id,
    endpoint: sub.endpoint,
    /** Which encryption and VAPID form pushes use (lib/push/send.ts): false for the legacy aesgcm draft. */
    standard: sub.standard,
    alerts: { ...sub.alerts },
    /** The VAPID public key push requests are signed with (the Application's `vapid_key`). */
    server_key: secrets().vapidPublicKey ?? '',
    policy: sub.policy,
  };
}
