// WebPushSubscription entity (https://docs.joinmastodon.org/entities/WebPushSubscription/), Mastodon 3.5 fields.
import { config } from '../config';
import type { PushSubscription } from '../db/push_subscriptions';

export function renderPushSubscription(sub: PushSubscription) {
  return {
    id: sub.id,
    endpoint: sub.endpoint,
    alerts: { ...sub.alerts },
    /** The VAPID public key push requests are signed with (the Application's `vapid_key`). */
    server_key: config.vapidPublicKey ?? '',
    policy: sub.policy,
  };
}
