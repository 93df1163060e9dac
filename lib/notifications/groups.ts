// Mastodon 4.3's notification groups (app/models/notification_group.rb): which
// group a new notification joins (its key is stored on it; lib/db/notification_groups.ts
// holds the key scheme), and a page of groups built as Mastodon builds it:
// notifications are read in order and the first one of each group stands for it,
// until `limit` groups are found; the members read give each group's count,
// sample accounts and page bounds.
import {
  GROUPABLE_TYPES,
  groupPrefix,
  HOUR_MS,
  hourOf,
  listedKeyOf,
  MAXIMUM_GROUP_SPAN_HOURS,
  SAMPLE_ACCOUNTS_SIZE,
  type GroupableType,
} from '../db/notification_groups';
import { groupBucketOf, type GroupBucket, type Notification } from '../db/notifications';
import { isId } from '../ids';
import type { PageGroup } from '../render/notification_group';

export type { PageGroup };

/**
 * The group a new notification joins: the recipient's current group of its kind
 * while that started less than 12 hours ago, else a new one from this hour
 * (one read of the bucket; concurrent writers may race, harmlessly, as Mastodon's do).
 */
export async function groupKeyFor(n: Pick<Notification, 'accountId' | 'type' | 'statusId' | 'createdAt'>): Promise<{ groupKey: string; bucket: GroupBucket } | undefined> {
  const prefix = groupPrefix(n);
  if (!prefix) return undefined;
  const hour = hourOf(n.createdAt);
  const previous = await groupBucketOf(n.accountId, prefix);
  const bucket = previous !== undefined && hour >= previous && hour < previous + MAXIMUM_GROUP_SPAN_HOURS ? previous : hour;
  return { groupKey: `${prefix}-${bucket}`, bucket: { prefix, hour: bucket } };
}

/** The grouped types of a request: `grouped_types[]` narrowed to the groupable ones, or all of them when not given. */
export function groupedTypesOf(requested: string[] | undefined): GroupableType[] {
  if (!requested || requested.length === 0) return [...GROUPABLE_TYPES];
  return GROUPABLE_TYPES.filter((t) => requested.includes(t));
}

/** What a group key names, or undefined when it cannot be one of ours (the endpoints answer 404). */
export type ParsedGroupKey =
  | { kind: 'ungrouped'; notificationId: string }
  | { kind: 'grouped'; type: GroupableType; statusId: string | null; hour: number };

export function parseGroupKey(key: string): ParsedGroupKey | undefined {
  if (key.length > 100) return undefined;
  const [, notificationId] = /^ungrouped-(\d{1,20})$/.exec(key) ?? [];
  if (notificationId) return { kind: 'ungrouped', notificationId };
  const [, followHour] = /^follow-(\d{1,9})$/.exec(key) ?? [];
  if (followHour) return { kind: 'grouped', type: 'follow', statusId: null, hour: Number(followHour) };
  const [, type, statusId, hour] = /^(favourite|reblog)-(\d{1,20})-(\d{1,9})$/.exec(key) ?? [];
  if (type && statusId && hour && isId(statusId)) return { kind: 'grouped', type: type as GroupableType, statusId, hour: Number(hour) };
  return undefined;
}

/** The first and last instant of an hour bucket, for reading the notifications a derived key names. */
export const hourSpan = (hour: number) => ({ from: new Date(hour * HOUR_MS), to: new Date((hour + 1) * HOUR_MS - 1) });

const byIdDesc = (a: Notification, b: Notification) => (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0);

/**
 * The first `limit` groups of notifications read in order (newest first, or
 * oldest first from `min_id`): each group stands at its first notification read.
 * Answers the standing notifications in read order.
 */
export function firstOfEachGroup(readInOrder: Notification[], limit: number, groupedTypes: readonly GroupableType[]): Notification[] {
  const seen = new Set<string>();
  const out: Notification[] = [];
  for (const n of readInOrder) {
    if (out.length >= limit) break;
    const key = listedKeyOf(n, groupedTypes);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(n);
  }
  return out;
}

/**
 * Groups a page (load_groups_data): for each standing notification, the members
 * of its group among `members` (every notification read, hidden ones left out)
 * up to the page's upper bound give the count, the most recent id and the sample
 * accounts; those inside the page's range give page_min_id / page_max_id.
 * `standing` is newest first.
 */
export function groupPage(
  standing: Notification[],
  members: Notification[],
  range: { lo?: bigint; hi?: bigint },
  groupedTypes: readonly GroupableType[],
): PageGroup[] {
  const byKey = new Map<string, Notification[]>();
  for (const n of [...members].sort(byIdDesc)) {
    const key = listedKeyOf(n, groupedTypes);
    if (range.hi !== undefined && BigInt(n.id) > range.hi) continue;
    const list = byKey.get(key) ?? [];
    list.push(n);
    byKey.set(key, list);
  }
  return standing.map((notification) => {
    const groupKey = listedKeyOf(notification, groupedTypes);
    const all = byKey.get(groupKey) ?? [notification];
    const inPage = all.filter((n) => range.lo === undefined || BigInt(n.id) >= range.lo);
    const newest = all[0] ?? notification;
    const sample = [...new Set(all.map((n) => n.fromAccountId))].slice(0, SAMPLE_ACCOUNTS_SIZE);
    return {
      groupKey,
      notification,
      notificationsCount: all.length,
      mostRecentNotificationId: newest.id,
      sampleAccountIds: sample,
      pageMinId: (inPage.at(-1) ?? notification).id,
      pageMaxId: (inPage[0] ?? notification).id,
      latestPageNotificationAt: newest.createdAt,
    };
  });
}

/** A group outside paging (GET /api/v2/notifications/:group_key): every member, newest first. */
export function wholeGroup(groupKey: string, membersNewestFirst: Notification[]): PageGroup | undefined {
  const newest = membersNewestFirst[0];
  if (!newest) return undefined;
  return {
    groupKey,
    notification: newest,
    notificationsCount: membersNewestFirst.length,
    mostRecentNotificationId: newest.id,
    sampleAccountIds: [...new Set(membersNewestFirst.map((n) => n.fromAccountId))].slice(0, SAMPLE_ACCOUNTS_SIZE),
    pageMinId: membersNewestFirst.at(-1)!.id,
    pageMaxId: newest.id,
    latestPageNotificationAt: newest.createdAt,
  };
}
