// NotificationRequest entity (Mastodon 4.3, https://docs.joinmastodon.org/entities/NotificationRequest/):
// id, created_at, updated_at, account, notifications_count (a string, as Mastodon
// serialises it) and last_status; and the NotificationPolicy entity in its v2 and
// v1 forms. A page of requests costs one batch read of accounts, one of statuses
// and the status renderer's own; a request whose sender is gone or suspended is left out, a
// last status the viewer may no longer see is null.
import { accountsByIds, type Account } from '../db/accounts';
import type { NotificationRequest, PolicyView } from '../db/notification_requests';
import { statusesByIds } from '../db/statuses';
import { visibleTo } from '../policy';
import { isSuspended } from '../policy/sanctions';
import { renderAccount } from './account';
import { renderStatuses } from './status';

export async function renderNotificationRequests(requests: NotificationRequest[], viewer: Account): Promise<Record<string, unknown>[]> {
  if (requests.length === 0) return [];
  const statusIds = requests.flatMap((r) => (r.lastStatusId ? [r.lastStatusId] : []));
  const [accounts, statuses] = await Promise.all([
    accountsByIds([...new Set(requests.map((r) => r.fromAccountId))]),
    statusIds.length > 0 ? statusesByIds(statusIds) : Promise.resolve(new Map()),
  ]);
  const visible = await visibleTo(viewer, [...statuses.values()], 'notifications');
  const renderedById = new Map((await renderStatuses(visible, viewer, { context: 'notifications' })).map((r) => [String(r.id), r]));
  return requests.flatMap((r) => {
    const from = accounts.get(r.fromAccountId);
    // A suspended sender's requests are left out, as Mastodon's `without_suspended` (back if the suspension is lifted).
    if (!from || isSuspended(from)) return [];
    return [{
      id: r.id,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
      account: renderAccount(from),
      notifications_count: String(r.notificationsCount),
      last_status: (r.lastStatusId && renderedById.get(r.lastStatusId)) || null,
    }];
  });
}

const summaryOf = (view: PolicyView) => ({
  pending_requests_count: view.summary.requests,
  pending_notifications_count: view.summary.notifications,
});

/** The v2 NotificationPolicy: accept, filter or drop per criterion. */
export const renderPolicy = ({ policy, ...view }: PolicyView) => ({
  for_not_following: policy.notFollowing,
  for_not_followers: policy.notFollowers,
  for_new_accounts: policy.newAccounts,
  for_private_mentions: policy.privateMentions,
  for_limited_accounts: policy.limitedAccounts,
  for_bots: policy.bots,
  summary: summaryOf({ policy, ...view }),
});

/** The v1 NotificationPolicy (Mastodon 4.3 still serves it): a criterion "filters" unless it accepts. */
export const renderV1Policy = ({ policy, ...view }: PolicyView) => ({
  filter_not_following: policy.notFollowing !== 'accept',
  filter_not_followers: policy.notFollowers !== 'accept',
  filter_new_accounts: policy.newAccounts !== 'accept',
  filter_private_mentions: policy.privateMentions !== 'accept',
  summary: summaryOf({ policy, ...view }),
});
