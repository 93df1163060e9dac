// GroupedNotificationsResults (https://docs.joinmastodon.org/entities/GroupedNotificationsResults/):
// the groups of a page (lib/notifications/groups.ts) with the accounts and statuses
// they name listed once beside them. Costs one batch read of accounts, the target
// statuses' batch read (lib/render/notification.ts) and the status renderer's own.
// A group whose standing actor is gone, or whose status is gone or no longer
// visible to the viewer, is left out, as a v1 notification would be.
import { accountsByIds } from '../db/accounts';
import type { Account } from '../db/accounts';
import { collectionTypes, statusTypes, type Notification } from '../db/notifications';
import { strikesByIds } from '../db/strikes';
import { renderAccountWarning } from './account_warning';
import { goneFor, visibleTo } from '../policy';
import { renderAccount } from './account';
import { notifiedCollections, notifiedReports, targetStatuses, withFallback } from './notification';
import { renderStatuses } from './status';

/** One group of a page, as lib/notifications/groups.ts assembles it. */
export type PageGroup = {
  groupKey: string;
  /** The notification that stands for the group (its newest on the page; its oldest when paging up from `min_id`). */
  notification: Notification;
  notificationsCount: number;
  mostRecentNotificationId: string;
  /** Actors of the group's newest notifications, newest first, each once. */
  sampleAccountIds: string[];
  pageMinId: string;
  pageMaxId: string;
  latestPageNotificationAt: string;
};

export type ExpandAccounts = 'full' | 'partial_avatars';

/** Mastodon's PartialAccountSerializer: what an avatar row needs. */
const partialAccount = (account: Account) => {
  const full = renderAccount(account);
  return { id: full.id, acct: full.acct, locked: full.locked, bot: full.bot, url: full.url, avatar: full.avatar, avatar_static: full.avatar_static };
};

export type GroupedResults = {
  accounts: Record<string, unknown>[];
  partial_accounts?: Record<string, unknown>[];
  statuses: Record<string, unknown>[];
  notification_groups: Record<string, unknown>[];
};

/**
 * Renders groups. `paginated` adds page_min_id, page_max_id and
 * latest_page_notification_at (a page of the list, not one group fetched by key).
 * With `partial_avatars`, only the standing notification's actor of each group is
 * a full account; the other sample accounts are partial ones.
 */
export async function renderNotificationGroups(
  groups: PageGroup[],
  viewer: Account,
  opts: { paginated: boolean; expandAccounts?: ExpandAccounts; supportedTypes?: readonly string[] },
): Promise<GroupedResults> {
  const accountIds = [...new Set(groups.flatMap((g) => [g.notification.fromAccountId, ...g.sampleAccountIds]))];
  const [read, targets, reports, strikes, collections] = await Promise.all([
    accountsByIds(accountIds),
    targetStatuses(groups.map((g) => g.notification)),
    notifiedReports(groups.map((g) => g.notification)),
    strikesByIds(groups.flatMap((g) => (g.notification.strikeId ? [g.notification.strikeId] : []))),
    notifiedCollections(groups.map((g) => g.notification), viewer),
  ]);
  // A suspended actor is gone for everyone else: its groups and its place in others' samples with it.
  const accounts = new Map([...read].filter(([, a]) => !goneFor(a, viewer.id)));
  const visible = await visibleTo(viewer, [...new Map([...targets.values()].map((s) => [s.id, s])).values()], 'notifications');
  const renderedById = new Map((await renderStatuses(visible, viewer, { context: 'notifications' })).map((r) => [String(r.id), r]));

  const statuses = new Map<string, Record<string, unknown>>();
  const fullIds = new Set<string>();
  const sampledIds = new Set<string>();
  const notificationGroups: Record<string, unknown>[] = [];
  for (const group of groups) {
    const n = group.notification;
    if (!accounts.has(n.fromAccountId)) continue;
    let statusId: string | undefined;
    if (statusTypes.includes(n.type)) {
      const target = n.statusId ? targets.get(n.statusId) : undefined;
      const status = target ? renderedById.get(target.id) : undefined;
      if (!status) continue;
      statusId = String(status.id);
      statuses.set(statusId, status);
    }
    // An admin.report group carries its Report (Mastodon 4.3's NotificationGroup#report); gone with the report.
    const report = n.type === 'admin.report' && n.reportId ? reports.get(n.reportId) : undefined;
    if (n.type === 'admin.report' && !report) continue;
    // Mastodon 4.3: a moderation_warning group carries its strike as AccountWarning.
    const strike = n.type === 'moderation_warning' && n.strikeId ? strikes.get(n.strikeId) : undefined;
    if (n.type === 'moderation_warning' && !strike) continue;
    // Mastodon 4.6: a collection group carries its collection; gone with it.
    const collection = collectionTypes.includes(n.type) ? collections.get(n.id) : undefined;
    if (collectionTypes.includes(n.type) && !collection) continue;
    const sample = group.sampleAccountIds.filter((id) => accounts.has(id));
    fullIds.add(n.fromAccountId);
    sample.forEach((id) => sampledIds.add(id));
    const from = accounts.get(n.fromAccountId)!;
    notificationGroups.push(withFallback({
      group_key: group.groupKey,
      notifications_count: group.notificationsCount,
      type: n.type,
      most_recent_notification_id: group.mostRecentNotificationId,
      ...(opts.paginated
        ? { page_min_id: group.pageMinId, page_max_id: group.pageMaxId, latest_page_notification_at: group.latestPageNotificationAt }
        : {}),
      sample_account_ids: sample,
      ...(statusId !== undefined ? { status_id: statusId } : {}),
      ...(report ? { report } : {}),
      ...(strike ? { moderation_warning: renderAccountWarning(strike, viewer) } : {}),
      ...(collection ? { collection } : {}),
    }, n.type, opts, () => ({ account: renderAccount(from), ...(report ? { report } : {}), ...(strike ? { moderation_warning: renderAccountWarning(strike, viewer) } : {}), ...(collection ? { collection } : {}) })));
  }

  const partial = opts.expandAccounts === 'partial_avatars';
  const fullAccountIds = partial ? [...fullIds] : [...new Set([...fullIds, ...sampledIds])];
  const out: GroupedResults = {
    accounts: fullAccountIds.flatMap((id) => (accounts.has(id) ? [renderAccount(accounts.get(id)!)] : [])),
    statuses: [...statuses.values()],
    notification_groups: notificationGroups,
  };
  if (partial) out.partial_accounts = [...sampledIds].filter((id) => !fullIds.has(id)).map((id) => partialAccount(accounts.get(id)!));
  return out;
}

/**
 * The JSON text of grouped results. Mastodon serializes most_recent_notification_id
 * as a number (Ice Cubes decodes it as an Int); our ids exceed a JavaScript number's
 * exact range, so the digits are written into the text as they are.
 */
export function groupedResultsJson(results: GroupedResults): string {
  return JSON.stringify(results).replace(/"most_recent_notification_id":"(\d{1,20})"/g, '"most_recent_notification_id":$1');
}
