// Which of a recipient's notification-policy criteria (Mastodon 4.3's
// NotificationPolicy, decided as NotifyService's DropCondition / FilterCondition)
// a new notification meets, and so whether it is accepted, filtered or dropped.
// Each fact is read only when a criterion that is not `accept` needs it, so an
// all-accept policy reads nothing here.
import type { Account } from '../db/accounts';
import { followEdge } from '../db/follows';
import type { NotificationType } from '../db/notifications';
import { policyCriteria, type NotificationPolicy, type PolicyAction, type PolicyCriterion } from '../db/notification_requests';
import { statusById, type Status } from '../db/statuses';
import { limitedFor } from './sanctions';

/** Types a policy may hold back (Mastodon's filterable types); polls and edits always arrive. */
const FILTERABLE_TYPES: readonly NotificationType[] = ['mention', 'status', 'reblog', 'favourite', 'follow', 'follow_request', 'quote', 'added_to_collection'];

const DAY_MS = 24 * 3600 * 1000;
/** Mastodon's NEW_ACCOUNT_THRESHOLD and NEW_FOLLOWER_THRESHOLD. */
const NEW_ACCOUNT_MS = 30 * DAY_MS;
const NEW_FOLLOWER_MS = 3 * DAY_MS;
/** How far up a thread a private mention looks for the recipient's own private mention of the sender (Mastodon: 100; each step is a read here). */
const RESPONSE_DEPTH = 5;

export type PolicySubject = { recipientId: string; sender: Account; type: NotificationType; status?: Status };

/** Memoises a read so that several criteria share it. */
const once = <T>(read: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= read());
};

/**
 * Is a private mention a reply within a private conversation the recipient started
 * with the sender: an ancestor is the recipient's own direct status mentioning the sender?
 */
async function respondsToRecipient(status: Status, recipientId: string, senderId: string): Promise<boolean> {
  let parentId = status.inReplyToId;
  for (let depth = 0; parentId && depth < RESPONSE_DEPTH; depth++) {
    const parent = await statusById(parentId);
    if (!parent) return false;
    if (parent.accountId === recipientId && parent.visibility === 'direct' && parent.mentions.some((m) => m.id === senderId)) return true;
    parentId = parent.inReplyToId;
  }
  return false;
}

function criteriaChecks(subject: PolicySubject): Record<PolicyCriterion, () => Promise<boolean>> {
  const { recipientId, sender, type, status } = subject;
  const notFollowing = once(async () => !(await followEdge(recipientId, sender.id)));
  const notFollower = once(async () => {
    const follow = await followEdge(sender.id, recipientId);
    return !follow || Date.now() - Date.parse(follow.createdAt) < NEW_FOLLOWER_MS;
  });
  return {
    notFollowing,
    notFollowers: notFollower,
    newAccounts: async () => Date.now() - Date.parse(sender.createdAt) < NEW_ACCOUNT_MS && (await notFollowing()),
    privateMentions: async () =>
      type === 'mention' && status?.visibility === 'direct' && (await notFollowing()) && !(await respondsToRecipient(status, recipientId, sender.id)),
    limitedAccounts: () => limitedFor(recipientId, sender, notFollowing),
    bots: async () => sender.bot && (await notFollowing()),
  };
}

async function anyMet(criteria: PolicyCriterion[], checks: Record<PolicyCriterion, () => Promise<boolean>>): Promise<boolean> {
  for (const criterion of criteria) if (await checks[criterion]()) return true;
  return false;
}

/** What the policy does with this notification: `drop` when a dropping criterion is met, else `filter` when a filtering one is, else `accept`. */
export async function policyAction(policy: NotificationPolicy, subject: PolicySubject): Promise<PolicyAction> {
  if (!FILTERABLE_TYPES.includes(subject.type)) return 'accept';
  const dropping = policyCriteria.filter((c) => policy[c] === 'drop');
  const filtering = policyCriteria.filter((c) => policy[c] === 'filter');
  if (dropping.length === 0 && filtering.length === 0) return 'accept';
  const checks = criteriaChecks(subject);
  if (await anyMet(dropping, checks)) return 'drop';
  if (await anyMet(filtering, checks)) return 'filter';
  return 'accept';
}
