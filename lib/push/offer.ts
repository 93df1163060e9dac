// Hands a stored notification to the push worker (the `push` queue), but only
// when its recipient has a subscription at all: most accounts have none, and
// a one-item key-only read is cheaper than a queued message and an invocation.
import type { Notification } from '../db/notifications';
import { hasPushSubscriptions } from '../db/push_subscriptions';
import { log } from '../log';
import { enqueue } from '../queue';

/**
 * Never throws: a push is a courtesy, and the notification (and whatever
 * caused it) must neither wait for it nor fail because of it.
 */
export async function offerPush(notification: Pick<Notification, 'id' | 'accountId'>): Promise<void> {
  try {
    if (!(await hasPushSubscriptions(notification.accountId))) return;
    await enqueue('push', { accountId: notification.accountId, notificationId: notification.id });
  } catch (err) {
    log.warn('push: not queued', { notificationId: notification.id, err });
  }
}
