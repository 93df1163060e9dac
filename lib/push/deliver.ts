// The push worker's job for one notification: send it to every subscription of
// its recipient that asked for its kind (and whose policy lets its actor
// through), each with its own access token in Mastodon's payload; drop the
// subscriptions the push service says are gone (404, 410).
//
// After send.ts's bounded retries, a subscription still failing transiently is
// left alone. If nothing at all was delivered, the message fails so that the
// queue delivers it again later (SQS: after the visibility timeout, up to five
// receives, then the dead-letter queue); if another subscription already got
// it, the message is done, since a redelivery would push to that one twice.
import { accountsByIds } from '../db/accounts';
import { followEdge } from '../db/follows';
import { notificationOf } from '../db/notifications';
import { deletePushSubscription, pushSubscriptionsOf, type PushSubscription } from '../db/push_subscriptions';
import { statusById } from '../db/statuses';
import { config } from '../config';
import { log } from '../log';
import type { PushMessage } from '../queue/messages';
import { goneFor } from '../policy/sanctions';
import { pushPayload } from './payload';
import { openToken } from './seal';
import { DEFAULT_RETRY, sendPush, type RetryPolicy, type SendResult } from './send';
import { tokenBinding } from './subscription';
import { vapidKeys } from './vapid';

export type PushReport = { sent: number; removed: number; failed: number; refused: number; skipped: number };

/** Does the subscription's policy let a notification from `fromId` through? Edges read once, only when a policy needs them. */
function policyGate(recipientId: string, fromId: string) {
  const memo = new Map<string, Promise<boolean>>();
  const once = (key: string, read: () => Promise<boolean>) => {
    let answer = memo.get(key);
    if (!answer) memo.set(key, (answer = read()));
    return answer;
  };
  return async (sub: PushSubscription): Promise<boolean> => {
    switch (sub.policy) {
      case 'all':
        return true;
      case 'none':
        return false;
      case 'followed':
        return once('followed', async () => (await followEdge(recipientId, fromId)) !== undefined);
      case 'follower':
        return once('follower', async () => (await followEdge(fromId, recipientId)) !== undefined);
    }
  };
}

/** The VAPID subject: a contact for the push services' operators (Mastodon uses the instance's contact e-mail). */
const vapidSubject = () => `mailto:${config.mailFrom}`;

export async function pushNotification(message: PushMessage, retry: RetryPolicy = DEFAULT_RETRY): Promise<PushReport> {
  const report: PushReport = { sent: 0, removed: 0, failed: 0, refused: 0, skipped: 0 };
  const [subscriptions, notification] = await Promise.all([pushSubscriptionsOf(message.accountId), notificationOf(message.accountId, message.notificationId)]);
  // Dismissed meanwhile, or every subscription gone: nothing to say.
  if (!notification || subscriptions.length === 0) return report;
  const vapid = vapidKeys();
  if (!vapid) {
    log.error('push: no VAPID key pair configured (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY); nothing sent', { notificationId: notification.id });
    return report;
  }
  const gate = policyGate(notification.accountId, notification.fromAccountId);
  const eligible: PushSubscription[] = [];
  for (const sub of subscriptions) {
    // Kinds no subscription can ask for (`update`: an edit) are not pushed.
    const asked = notification.type in sub.alerts && sub.alerts[notification.type as keyof typeof sub.alerts];
    if (asked && (await gate(sub))) eligible.push(sub);
    else report.skipped++;
  }
  if (eligible.length === 0) return report;

  const [accounts, status] = await Promise.all([
    accountsByIds([notification.accountId, notification.fromAccountId]),
    notification.statusId ? statusById(notification.statusId) : Promise.resolve(undefined),
  ]);
  const recipient = accounts.get(notification.accountId);
  const from = accounts.get(notification.fromAccountId);
  // A suspended actor's notifications are gone with it: nothing is pushed (lib/policy/sanctions.ts).
  if (!recipient || !from || goneFor(from, recipient.id)) return report;

  const results = await Promise.all(
    eligible.map(async (sub): Promise<[PushSubscription, SendResult]> => {
      const accessToken = sub.sealedToken ? openToken(sub.sealedToken, tokenBinding(sub.accountId, sub.tokenId)) ?? '' : '';
      const payload = pushPayload({ notification, recipient, from, status, accessToken });
      return [sub, await sendPush(sub, payload, vapid, vapidSubject(), retry)];
    }),
  );

  let transient = 0;
  for (const [sub, result] of results) {
    const fields = { subscriptionId: sub.id, notificationId: notification.id, attempts: result.attempts };
    switch (result.kind) {
      case 'delivered':
        report.sent++;
        break;
      case 'gone':
        // Only this subscription: the token may have subscribed again meanwhile.
        await deletePushSubscription(sub.accountId, sub.tokenId, sub.id);
        report.removed++;
        log.info('push: subscription gone, removed', { ...fields, status: result.status });
        break;
      case 'refused':
        report.refused++;
        log.warn('push: endpoint refused at send time', { ...fields, reason: result.reason });
        break;
      case 'failed':
        report.failed++;
        if (result.transient) transient++;
        log.warn('push: not delivered', { ...fields, status: result.status, error: result.error, transient: result.transient });
        break;
    }
  }
  if (transient > 0 && report.sent === 0) throw new Error(`push: ${transient} send(s) still failing after ${retry.attempts} attempts; left for the queue to retry`);
  return report;
}
