// Who receives a status or a notification, where deciding needs reads: the
// fan-out's recipients (home and lists), whether a notification is created, and
// which notifications a viewer sees on read. The pure rules are in delivery.ts.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { dropFilteredNotifications, recipientsFilteringOut } from './filters';
import { limitedSender } from './sanctions';
import { hiddenFor, notificationHidden, notificationSuppressed, recipientsHiding } from './hidden';

/**
 * Which of `recipientIds` refuse `status` in their home and lists: they block,
 * are blocked by or mute one of its `authors` (authorsOf), or one of their
 * irreversible `home` filters matches it (Mastodon's filter_from_list? includes
 * filter_from_home?). Batch reads of blocks and mutes, one of filter summaries.
 */
export async function recipientsRefusing(status: Status, authors: string[], recipientIds: string[]): Promise<Set<string>> {
  const refusing = await recipientsHiding(authors, recipientIds);
  for (const id of await recipientsFilteringOut(status, recipientIds, 'home')) refusing.add(id);
  return refusing;
}

/**
 * May a notification from `actorId` (about `status`) reach `recipientId`? Not when
 * either blocks the other, the recipient mutes the actor's notifications or blocks
 * their domain (Mastodon's NotifyService#blocked?), nor from an account of a silenced server the recipient
 * does not follow (from_limited?), nor when an irreversible
 * `notifications` filter of the recipient matches the status.
 */
export async function mayNotify(recipientId: string, actorId: string, status: Status | undefined): Promise<boolean> {
  if (await notificationSuppressed(recipientId, actorId)) return false;
  if (await limitedSender(recipientId, actorId)) return false;
  return !(status && (await recipientsFilteringOut(status, [recipientId], 'notifications')).size > 0);
}

/**
 * The notifications `viewer` sees, in input order: none from accounts blocked
 * either way or muted with notifications, none about statuses the viewer's
 * irreversible `notifications` filters match (filters added after the
 * notification included). One Query per block and mute partition, then the
 * filters and, when there are some, one batch read of the statuses.
 */
export async function visibleNotifications<N extends { fromAccountId: string; statusId: string | null }>(viewer: Account, notifications: N[]): Promise<N[]> {
  const hidden = await hiddenFor(viewer.id);
  return dropFilteredNotifications(notifications.filter((n) => !notificationHidden(hidden, n.fromAccountId)), viewer.id);
}
