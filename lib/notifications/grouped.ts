// What the /api/v2/notifications endpoints do (Mastodon 4.3's
// Api::V2::NotificationsController): a page of notification groups, one group by
// its key, its accounts, dismissing it, and the unread counts (v1 and v2) from the
// notifications marker. Every read is a Query of the recipient's notification
// partition (or of one group in GSI1); blocks, mutes and filters hide notifications
// exactly as in v1 (lib/policy visibleNotifications), before grouping.
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { markersOf } from '../db/markers';
import { listedKeyOf, type GroupableType } from '../db/notification_groups';
import {
  deleteNotifications,
  groupMembers,
  notificationOf,
  notificationsOfKindBetween,
  notificationsWindow,
  type Notification,
} from '../db/notifications';
import { idAt } from '../ids';
import { pageQuery, limitParam } from '../paging';
import { visibleNotifications } from '../policy';
import { booleanish, idParam } from '../schema';
import { firstOfEachGroup, groupedTypesOf, groupPage, hourSpan, parseGroupKey, wholeGroup, type PageGroup } from './groups';
import { requestedTypes, supportedTypes, typeList } from './query';

export const GROUPED_LIMIT = 40;
export const GROUPED_MAX_LIMIT = 80;
/** Notifications read per Query when building a page, and Queries at most (a page stands on at most 1,000 notifications). */
const WINDOW = { chunk: 200, maxCalls: 5 };

const filterParams = {
  types: typeList.optional(),
  exclude_types: typeList.optional(),
  account_id: idParam,
  grouped_types: typeList.optional(),
  include_filtered: booleanish.optional(),
};

export const groupedQuery = pageQuery(GROUPED_LIMIT, GROUPED_MAX_LIMIT).extend({
  ...filterParams,
  expand_accounts: z.enum(['full', 'partial_avatars'], { errorMap: () => ({ message: "must be 'full' or 'partial_avatars'" }) }).optional(),
  ...supportedTypes,
});
export type GroupedQuery = z.infer<typeof groupedQuery>;

/** Mastodon's DEFAULT_NOTIFICATIONS_COUNT_LIMIT and MAX_NOTIFICATIONS_COUNT_LIMIT. */
export const UNREAD_LIMIT = 100;
export const UNREAD_MAX_LIMIT = 1000;
export const unreadCountQuery = z.object({ ...filterParams, limit: limitParam(UNREAD_LIMIT, UNREAD_MAX_LIMIT) });
export type UnreadCountQuery = z.infer<typeof unreadCountQuery>;

const filterOf = (input: Pick<GroupedQuery, 'types' | 'exclude_types' | 'account_id' | 'include_filtered'>) => ({
  types: requestedTypes(input),
  fromAccountId: input.account_id,
  includeFiltered: input.include_filtered === true,
});

const distinctGroups = (items: Notification[], groupedTypes: readonly GroupableType[]) => new Set(items.map((n) => listedKeyOf(n, groupedTypes))).size;

export type GroupedPage = {
  groups: PageGroup[];
  edges: { newest?: string; oldest?: string };
  /** Whether the page was read upwards from `min_id`: its groups nearest the request are then its oldest. */
  ascending: boolean;
  /**
   * The page cut to its `count` groups nearest where the request started (newest first when read
   * downwards, oldest when read upwards), as a smaller `limit` would have read it: the page's range,
   * the kept groups' page_min_id/page_max_id and the Link edges end at the last group kept. The groups
   * left out have no notification inside that range (each group stands by its member nearest the
   * request), so the next page, from the new edge, holds every one of theirs, and none is repeated.
   */
  cut: (count: number) => GroupedPage;
};

/**
 * A page of groups (to_a_grouped_paginated_by_id, then NotificationGroup.from_notifications):
 * newest first below `max_id` (down to `since_id`), or the groups immediately newer
 * than `min_id`. The Link edges are the standing notifications' ids, as Mastodon's.
 */
export async function groupedPage(viewer: Account, input: GroupedQuery): Promise<GroupedPage> {
  const groupedTypes = groupedTypesOf(input.grouped_types);
  const ascending = input.min_id !== undefined;
  const range = ascending ? { min_id: input.min_id, max_id: input.max_id } : { max_id: input.max_id, since_id: input.since_id };
  const window = await notificationsWindow(viewer.id, range, filterOf(input), (read) => distinctGroups(read, groupedTypes) >= input.limit, WINDOW);
  const shown = await visibleNotifications(viewer, window.items);
  const standingInReadOrder = firstOfEachGroup(shown, input.limit, groupedTypes);
  const standing = ascending ? [...standingInReadOrder].reverse() : standingInReadOrder;
  const newest = standing[0];
  const oldest = standing.at(-1);
  if (!newest || !oldest) return { groups: [], edges: {}, ascending, cut: () => empty(ascending) };

  // The page's id range (load_grouped_notifications): its standing notifications, or to the
  // request's own bound when the page came up short (the last page in that direction).
  const short = standingInReadOrder.length < input.limit;
  let lo = BigInt(oldest.id);
  let hi = BigInt(newest.id);
  if (short && ascending) hi = input.max_id !== undefined ? BigInt(input.max_id) - 1n : hi;
  if (short && !ascending) lo = input.since_id !== undefined ? BigInt(input.since_id) + 1n : 0n;
  const whole: GroupedPage = {
    groups: groupPage(standing, shown, { lo, hi }, groupedTypes),
    edges: { newest: newest.id, oldest: oldest.id },
    ascending,
    cut: (count) => {
      if (count >= standing.length) return whole;
      const kept = ascending ? standing.slice(standing.length - count) : standing.slice(0, count);
      const keptNewest = kept[0];
      const keptOldest = kept.at(-1);
      if (!keptNewest || !keptOldest) return empty(ascending);
      const range = ascending ? { lo, hi: BigInt(keptNewest.id) } : { lo: BigInt(keptOldest.id), hi };
      const edges = ascending ? { newest: keptNewest.id, oldest: oldest.id } : { newest: newest.id, oldest: keptOldest.id };
      return { groups: groupPage(kept, shown, range, groupedTypes), edges, ascending, cut: () => whole.cut(count) };
    },
  };
  return whole;
}

const empty = (ascending: boolean): GroupedPage => ({ groups: [], edges: {}, ascending, cut: () => empty(ascending) });

/**
 * Every notification of the viewer a group key names, newest first; [] for a key
 * that is not one of ours. `ungrouped-<id>` is that notification (as Mastodon's
 * by_group_key); stored keys are one Query of GSI1; a key derived for
 * notifications stored before keys were reads that hour of the partition.
 */
async function membersOf(viewerId: string, groupKey: string, range: { max_id?: string; since_id?: string; limit?: number } = {}): Promise<Notification[]> {
  const parsed = parseGroupKey(groupKey);
  if (!parsed) return [];
  if (parsed.kind === 'ungrouped') {
    const one = await notificationOf(viewerId, parsed.notificationId);
    return one ? [one] : [];
  }
  const stored = await groupMembers(viewerId, groupKey, range);
  if (stored.length > 0) return stored;
  const span = hourSpan(parsed.hour);
  const hourRange = {
    max_id: (BigInt(idAt(span.to)) + 1n).toString(),
    since_id: (BigInt(idAt(span.from)) - 1n).toString(),
  };
  const older = await notificationsOfKindBetween(viewerId, parsed.type, parsed.statusId, hourRange);
  const inRange = older.filter((n) => listedKeyOf(n, [parsed.type]) === groupKey
    && (range.max_id === undefined || BigInt(n.id) < BigInt(range.max_id))
    && (range.since_id === undefined || BigInt(n.id) > BigInt(range.since_id)));
  return range.limit !== undefined ? inRange.slice(0, range.limit) : inRange;
}

/** The members of a group the viewer sees (blocks, mutes and filters as v1), newest first. */
export async function notificationsOfGroup(viewer: Account, groupKey: string, range: { max_id?: string; since_id?: string; limit?: number } = {}): Promise<Notification[]> {
  return visibleNotifications(viewer, await membersOf(viewer.id, groupKey, range));
}

/** One group by its key (Mastodon's show: every member counts), or undefined. */
export async function groupByKey(viewer: Account, groupKey: string): Promise<PageGroup | undefined> {
  return wholeGroup(groupKey, await notificationsOfGroup(viewer, groupKey));
}

/** Removes every notification of the viewer's group, hidden ones too (none for a key that is not theirs, as Mastodon's destroy_all). */
export async function dismissGroup(viewer: Account, groupKey: string): Promise<number> {
  const members = await membersOf(viewer.id, groupKey);
  await deleteNotifications(viewer.id, members);
  return members.length;
}

/** The viewer's notifications marker position, if set. */
async function notificationsMarker(viewer: Account): Promise<string | undefined> {
  return (await markersOf(viewer.id)).find((m) => m.timeline === 'notifications')?.lastReadId;
}

/**
 * Unread notifications after the notifications marker, counted up to `limit`
 * (v1: notifications; v2: groups, as paginate_groups_by_min_id counts them).
 */
export async function unreadCount(viewer: Account, input: UnreadCountQuery, counting: 'notifications' | 'groups'): Promise<number> {
  const groupedTypes = groupedTypesOf(input.grouped_types);
  const since = await notificationsMarker(viewer);
  const count = (items: Notification[]) => (counting === 'groups' ? distinctGroups(items, groupedTypes) : items.length);
  const window = await notificationsWindow(
    viewer.id,
    { min_id: since ?? '0' },
    filterOf(input),
    (read) => count(read) >= input.limit,
    { chunk: input.limit, maxCalls: 3 },
  );
  return Math.min(count(await visibleNotifications(viewer, window.items)), input.limit);
}
