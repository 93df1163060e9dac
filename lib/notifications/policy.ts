// What Mastodon 4.3's notification policy does here: the decision taken when a
// notification is created (accept, filter into a request, or drop), reading and
// changing the policy with its pending summary, and accepting or dismissing the
// notification requests filtered notifications gather into. The criteria
// themselves are a rule of who is notified: lib/policy/notification_policy.ts.
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { deleteNotifications, type Notification, type NotificationType } from '../db/notifications';
import {
  deleteRequest,
  filteredNotificationsFrom,
  pendingSummary,
  permitSender,
  requestCountUpdate,
  requestOf,
  savePolicy,
  senderPermitted,
  storedPolicyOf,
  unfilterNotifications,
  UNSET_POLICY,
  type NotificationPolicy,
  type NotificationRequest,
  type PolicyAction,
  type PolicyView,
} from '../db/notification_requests';
import type { Status } from '../db/statuses';
import { isId } from '../ids';
import { policyAction } from '../policy/notification_policy';
import { oneOrMany } from '../schema';

/**
 * What the recipient's policy does with a new notification. One GetItem of the
 * policy (one never set is Mastodon's default, which filters limited accounts);
 * the follow edges, thread and permission only when a criterion needs them.
 */
export async function policyDecision(recipientId: string, sender: Account, type: NotificationType, status: Status | undefined): Promise<PolicyAction> {
  const policy = (await storedPolicyOf(recipientId)) ?? UNSET_POLICY;
  const action = await policyAction(policy, { recipientId, sender, type, status });
  // A sender whose request the recipient accepted is never held back again.
  if (action !== 'accept' && (await senderPermitted(recipientId, sender.id))) return 'accept';
  return action;
}

/** What creating a filtered notification also writes: its count in the request of its (recipient, sender). */
export const requestWritesFor = (notification: Notification) => (notification.filtered ? [requestCountUpdate(notification)] : []);

/** The policy in force (every criterion accepted until one is set) and what it holds back: two reads. */
export async function policyView(accountId: string): Promise<PolicyView> {
  const [stored, summary] = await Promise.all([storedPolicyOf(accountId), pendingSummary(accountId)]);
  return { policy: stored ?? UNSET_POLICY, summary };
}

/**
 * Changes some criteria of the policy (`change` answers them from the policy in
 * force), keeping the others; answers the new view. Nothing is written when
 * nothing changes, so an account that never chose stays without a policy.
 */
export async function updatePolicy(accountId: string, change: (current: NotificationPolicy) => Partial<NotificationPolicy>): Promise<PolicyView> {
  const current = (await storedPolicyOf(accountId)) ?? UNSET_POLICY;
  const changes = Object.fromEntries(Object.entries(change(current)).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length > 0) await savePolicy(accountId, { ...current, ...changes });
  return policyView(accountId);
}

/**
 * Accepts a request (AcceptNotificationRequestService): the sender is permitted
 * first, so that notifications arriving meanwhile are not filtered again, then
 * the request goes and its notifications become normal ones.
 */
export async function acceptRequest(request: NotificationRequest): Promise<void> {
  await permitSender(request.accountId, request.fromAccountId);
  await deleteRequest(request);
  await unfilterNotifications(await filteredNotificationsFrom(request.accountId, request.fromAccountId));
}

/** Dismisses a request (DismissNotificationRequestService): the request and its filtered notifications go. */
export async function dismissRequest(request: NotificationRequest): Promise<void> {
  await deleteRequest(request);
  await deleteNotifications(request.accountId, await filteredNotificationsFrom(request.accountId, request.fromAccountId));
}

/** One of the viewer's requests by id; undefined for an id that is not one, or not the viewer's (the endpoints answer 404). */
export const viewerRequest = async (viewerId: string, id: string): Promise<NotificationRequest | undefined> =>
  isId(id) ? requestOf(viewerId, id) : undefined;

/** The viewer's requests among `ids` (each one Query); ids that are not the viewer's are passed over, as Mastodon's bulk actions do. */
export async function viewerRequests(viewerId: string, ids: string[]): Promise<NotificationRequest[]> {
  const found = await Promise.all([...new Set(ids)].map((id) => viewerRequest(viewerId, id)));
  return found.filter((r): r is NotificationRequest => r !== undefined);
}

/**
 * The `id[]` of the bulk accept and dismiss endpoints. As Mastodon's (which looks the ids up and acts on those it
 * finds), no id, an empty list or values that are no ids act on nothing and answer 200; a number is read as its
 * digits. At most a page's worth (80, the list's largest page), so that one request's reads stay bounded.
 */
export const bulkRequestIds = z.object({
  id: oneOrMany(z.array(z.unknown(), { invalid_type_error: 'must be a list of ids' }).max(80, 'has too many ids'))
    .optional()
    .transform((values) =>
      (values ?? []).flatMap((v) => {
        const text = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
        return typeof text === 'string' && isId(text) ? [text] : [];
      }),
    ),
});
export type BulkRequestIds = z.infer<typeof bulkRequestIds>;
