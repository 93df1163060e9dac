// WebPushSubscription entity (https://docs.joinmastodon.org/entities/WebPushSubscription/), Mastodon 3.5 fields.
import type { PushSubscription } from '../db/push_subscriptions';
import { secrets } from '../secrets';

export function renderPushSubscription(sub: PushSubscription) {
  return {
    id: sub.id,
    endpoint: sub.endpoint,
    alerts: { ...sub.alerts },
    /** The VAPID public key push requests are signed with (the Application's `vapid_key`). */
    server_key: secrets().vapidPublicKey ?? '',
    policy: sub.policy,
  };
}
