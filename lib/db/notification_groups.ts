// Mastodon 4.3's notification group keys (app/models/concerns/notification/groups.rb):
// favourites and reblogs of one status, and follows, that arrive within a 12-hour
// span share `<type>-<status id>-<hour bucket>` (`follow-<hour bucket>`); every
// other notification is its own group `ungrouped-<id>`. The key is stored on the
// notification when it is written (lib/notifications/groups.ts picks the bucket);
// one stored before that derives its key from its own hour. Pure functions of the
// stored item, below lib/render and lib/notifications, which both need them.
import type { Notification, NotificationType } from './notifications';

export const GROUPABLE_TYPES = ['favourite', 'reblog', 'follow'] as const satisfies readonly NotificationType[];
export type GroupableType = (typeof GROUPABLE_TYPES)[number];
/** A group takes new notifications for this long after the hour it started in. */
export const MAXIMUM_GROUP_SPAN_HOURS = 12;
/** Accounts named per group (NotificationGroup::SAMPLE_ACCOUNTS_SIZE). */
export const SAMPLE_ACCOUNTS_SIZE = 8;

export const HOUR_MS = 3_600_000;
export const isGroupable = (type: NotificationType): type is GroupableType => (GROUPABLE_TYPES as readonly string[]).includes(type);
export const hourOf = (iso: string) => Math.floor(Date.parse(iso) / HOUR_MS);

/** The part of a group key before its hour: what one recipient's groups of one kind share. */
export function groupPrefix(n: Pick<Notification, 'type' | 'statusId'>): string | undefined {
  if (n.type === 'follow') return 'follow';
  if ((n.type === 'favourite' || n.type === 'reblog') && n.statusId) return `${n.type}-${n.statusId}`;
  return undefined;
}

/** A notification's group key as stored, or derived from its own hour when it was stored without one. */
export function groupKeyOf(n: Notification): string | undefined {
  if (n.groupKey) return n.groupKey;
  const prefix = groupPrefix(n);
  return prefix ? `${prefix}-${hourOf(n.createdAt)}` : undefined;
}

/** The key a notification is listed under: its group's when its type is grouped in this request, else `ungrouped-<id>`. */
export function listedKeyOf(n: Notification, groupedTypes: readonly GroupableType[]): string {
  const key = isGroupable(n.type) && groupedTypes.includes(n.type) ? groupKeyOf(n) : undefined;
  return key ?? `ungrouped-${n.id}`;
}

