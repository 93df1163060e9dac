// Writes the notification a `notify` message asks for, with Mastodon's
// NotifyService rules that apply here: never for one's own action (except the
// poll-ended notice to the poll's author), only to existing local accounts,
// not about a status that is gone, and at most once per
// (recipient, type, actor, status) however often the message is delivered.
// The recipient's notification policy (lib/notifications/policy.ts) may drop it,
// or file it, unstreamed and unpushed, into a notification request.
// The staff's notifications (admin.sign_up, admin.report: lib/moderation/staff_notices.ts)
// are a moderator's duty, not social ones: no block, mute or policy of the moderator holds them back.
import { accountsByIds } from '../db/accounts';
import { collectionTypes, createNotification, staffTypes, statusTypes, type Notification, type NotificationType } from '../db/notifications';
import { statusById } from '../db/statuses';
import { nowIso } from '../db/table';
import { newId } from '../ids';
import { log } from '../log';
import { mayNotify } from '../policy';
import { offerPush } from '../push/offer';
import { publishNotification } from '../streaming/publish';
import { groupKeyFor } from './groups';
import { policyDecision, requestWritesFor } from './policy';

export type NotifyRequest = {
  type: NotificationType;
  accountId: string;
  fromAccountId: string;
  statusId?: string;
  /** The report of an `admin.report` notification. */
  reportId?: string;
  /** A collection notification's collection, and the item or change it stands for. */
  collectionId?: string;
  activityId?: string;
};

export type NotifyOutcome = 'created' | 'duplicate' | 'self' | 'no-recipient' | 'no-actor' | 'no-status' | 'hidden' | 'dropped' | 'filtered';

export async function notify(request: NotifyRequest): Promise<NotifyOutcome> {
  const { type, accountId, fromAccountId } = request;
  if (accountId === fromAccountId && type !== 'poll') return 'self';
  const statusId = statusTypes.includes(type) ? request.statusId ?? null : null;
  const status = statusId ? await statusById(statusId) : undefined;
  if (statusTypes.includes(type) && !status) return 'no-status';
  const accounts = await accountsByIds([accountId, fromAccountId]);
  const recipient = accounts.get(accountId);
  const sender = accounts.get(fromAccountId);
  if (!recipient || recipient.domain !== null) return 'no-recipient';
  if (!sender) return 'no-actor';
  const forStaff = staffTypes.includes(type);
  const reportId = type === 'admin.report' ? request.reportId : undefined;
  if (type === 'admin.report' && !reportId) return 'no-status';
  const collection = collectionTypes.includes(type) ? { collectionId: request.collectionId, activityId: request.activityId } : undefined;
  if (collection && (!collection.collectionId || !collection.activityId)) return 'no-status';
  // Blocks, notification mutes, domain blocks and irreversible `notifications` filters (lib/policy/receive.ts).
  if (!forStaff && !(await mayNotify(accountId, fromAccountId, status))) return 'hidden';
  // The recipient's notification policy (Mastodon 4.3): dropped, or kept out of sight in a notification request.
  const decision = forStaff ? 'accept' : await policyDecision(accountId, sender, type, status);
  if (decision === 'drop') return 'dropped';

  const notification: Notification = {
    id: newId(),
    type,
    accountId,
    fromAccountId,
    statusId,
    ...(reportId ? { reportId } : {}),
    ...(collection ?? {}),
    createdAt: nowIso(),
    ...(decision === 'filter' ? { filtered: true } : {}),
  };
  // Favourites, reblogs and follows join the recipient's current group of their kind (Mastodon 4.3).
  // A reblog notification groups under the reblogged status, whichever of the two the message names.
  const group = notification.filtered ? undefined : await groupKeyFor({ ...notification, statusId: status?.reblogOfId ?? statusId });
  if (group) notification.groupKey = group.groupKey;
  const created = await createNotification(notification, group?.bucket, requestWritesFor(notification));
  if (!created) return 'duplicate';
  log.debug('notification created', { id: notification.id, type, accountId, filtered: notification.filtered === true });
  // A filtered notification is neither streamed nor pushed: it waits in its request.
  if (notification.filtered) return 'filtered';
  // Streaming: the recipient's `user` / `user:notification` streams (never fails the notification).
  await publishNotification(notification, recipient);
  // Web Push: queued for the push worker when the recipient has a subscription (never fails the notification).
  await offerPush(notification);
  return 'created';
}
