// Whose statuses and notifications a viewer must not see because of blocks,
// mutes and domain blocks (Mastodon's FeedManager#filter?, StatusFilter,
// NotifyService#blocked?). An account on a domain the viewer blocks is hidden
// like a blocked one; statuses carry no author domain, so finding those accounts
// costs one batch read of the page's accounts, made only for viewers with domain blocks.
import { accountsByIds, type Account } from '../db/accounts';
import { blockAndMuteSets, blockingOrMutingAny, muteActive, standingBetween } from '../db/blocks';
import { accountsBlockingDomains, blockableDomain, blockedDomainsAmong } from '../db/domain_blocks';
import { statusesByIds, type Status } from '../db/statuses';

/** Everything a viewer hides, read once (hiddenFor) and asked by every rule below. */
export type Hidden = {
  /** Accounts the viewer blocks or is blocked by. */
  blocked: ReadonlySet<string>;
  /** Accounts the viewer mutes (active mutes only). */
  muted: ReadonlySet<string>;
  /** Muted accounts whose notifications are hidden too. */
  mutedNotifications: ReadonlySet<string>;
  /** Domains the viewer blocks (normalised): every account on them is hidden. */
  domains: ReadonlySet<string>;
};

const NONE: ReadonlySet<string> = new Set();
export const NOTHING_HIDDEN: Hidden = { blocked: NONE, muted: NONE, mutedNotifications: NONE, domains: NONE };

/** The viewer's block (with its domain blocks), blocked-by and mute partitions, read whole (one Query each). */
export async function hiddenFor(viewerId: string | undefined): Promise<Hidden> {
  if (!viewerId) return NOTHING_HIDDEN;
  const sets = await blockAndMuteSets(viewerId);
  return {
    blocked: new Set([...sets.blocking.map((b) => b.targetAccountId), ...sets.blockedBy.map((b) => b.accountId)]),
    muted: new Set(sets.muting.map((m) => m.targetAccountId)),
    mutedNotifications: new Set(sets.muting.filter((m) => m.notifications).map((m) => m.targetAccountId)),
    domains: sets.blockedDomains.length > 0 ? new Set(sets.blockedDomains) : NONE,
  };
}

/** Are the statuses of `accountId` hidden from the viewer's timelines (blocked either way, or muted)? Domains aside. */
export const hidesAuthor = (hidden: Hidden, accountId: string): boolean => hidden.blocked.has(accountId) || hidden.muted.has(accountId);

/** Is an account hidden from the viewer's account searches: blocked either way, or on a blocked domain? Mutes do not hide accounts. */
export const hidesAccount = (hidden: Hidden, account: Pick<Account, 'id' | 'domain'>): boolean =>
  hidden.blocked.has(account.id) || (account.domain !== null && hidden.domains.has(account.domain));

/**
 * Is a notification from `fromAccountId` hidden on read (blocked either way, or
 * muted with notifications)? Domain blocks need no check here: blocking a domain
 * clears its notifications and notificationSuppressed keeps new ones out.
 */
export const notificationHidden = (hidden: Hidden, fromAccountId: string): boolean =>
  hidden.blocked.has(fromAccountId) || hidden.mutedNotifications.has(fromAccountId);

/**
 * `ids` plus the accounts among the authors of `statuses` and the accounts
 * they reply to whose domain is blocked (one batch read of those accounts).
 */
async function withDomainAccounts(ids: Set<string>, domains: ReadonlySet<string>, statuses: Status[]): Promise<Set<string>> {
  const involved = new Set(statuses.flatMap((s) => (s.inReplyToAccountId !== null ? [s.accountId, s.inReplyToAccountId] : [s.accountId])));
  const accounts = await accountsByIds([...involved].filter((id) => !ids.has(id)));
  const out = new Set(ids);
  for (const account of accounts.values()) {
    const domain = blockableDomain(account);
    if (domain !== undefined && domains.has(domain)) out.add(account.id);
  }
  return out;
}

/**
 * Drops statuses written by, reblogging, or replying to an account the viewer
 * blocks (either way), mutes, or whose domain the viewer blocks. Reads the
 * reblogged originals (one batch read) only when there is something to hide,
 * and the accounts of the page only when there are blocked domains.
 */
export async function withoutHidden(statuses: Status[], hidden: Hidden): Promise<Status[]> {
  const ids = new Set([...hidden.blocked, ...hidden.muted]);
  const { domains } = hidden;
  if ((ids.size === 0 && domains.size === 0) || statuses.length === 0) return statuses;
  const reblogged = [...new Set(statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))];
  const originals = reblogged.length > 0 ? await statusesByIds(reblogged) : new Map<string, Status>();
  const hiding = domains.size > 0 ? await withDomainAccounts(ids, domains, [...statuses, ...originals.values()]) : ids;
  const shows = (s: Status | undefined) => s !== undefined && !hiding.has(s.accountId) && !(s.inReplyToAccountId !== null && hiding.has(s.inReplyToAccountId));
  return statuses.filter((s) => shows(s) && (!s.reblogOfId || !originals.has(s.reblogOfId) || shows(originals.get(s.reblogOfId))));
}

/**
 * Must `b`'s statuses be hidden from `a` entirely: does either block the other,
 * or does `a` block `b`'s domain? One batch read (with `b`'s account), and one
 * more exact read only when `b` is remote.
 */
export async function blockedBetween(a: string, b: string): Promise<boolean> {
  const standing = await standingBetween(a, b, false);
  if (standing.blockedEitherWay) return true;
  const domain = blockableDomain(standing.account());
  return domain !== undefined && (await blockedDomainsAmong(a, [domain])).size > 0;
}

/** Does `viewerId` block the domain of `account`? One exact read, none for a local account. */
export async function blocksDomainOf(viewerId: string, account: Pick<Account, 'domain'>): Promise<boolean> {
  const domain = blockableDomain(account);
  return domain !== undefined && (await blockedDomainsAmong(viewerId, [domain])).size > 0;
}

/**
 * Must a notification from `actorId` to `recipientId` not be created? When either
 * blocks the other, the recipient mutes the actor with notifications hidden, or
 * the recipient blocks the actor's domain. One batch read (with the actor's
 * account), and one more exact read only when the actor is remote.
 */
export async function notificationSuppressed(recipientId: string, actorId: string): Promise<boolean> {
  const standing = await standingBetween(recipientId, actorId, true);
  if (standing.blockedEitherWay) return true;
  if (muteActive(standing.mute) && standing.mute.notifications) return true;
  const domain = blockableDomain(standing.account());
  return domain !== undefined && (await blockedDomainsAmong(recipientId, [domain])).size > 0;
}

/** The accounts a status belongs to for hiding: its author and, for a reblog, the original's author. */
export async function authorsOf(status: Status): Promise<string[]> {
  if (!status.reblogOfId) return [status.accountId];
  const original = (await statusesByIds([status.reblogOfId])).get(status.reblogOfId);
  return original && original.accountId !== status.accountId ? [status.accountId, original.accountId] : [status.accountId];
}

/**
 * Which of `recipientIds` must not receive a status of `authorIds` at fan-out
 * (home, lists) or on shared streams: those who block, are blocked by, or mute
 * one of the authors, or block the domain of a remote one. Batch reads of at most
 * 100 keys (three per recipient and author), one of the authors' accounts, and
 * one of (recipient, domain) keys only when an author is remote.
 */
export async function recipientsHiding(authorIds: string[], recipientIds: string[]): Promise<Set<string>> {
  const recipients = recipientIds.filter((id) => !authorIds.includes(id));
  const hiding = await blockingOrMutingAny(authorIds, recipients);
  if (recipients.length === 0) return hiding;
  const authors = await accountsByIds(authorIds);
  const domains = [...new Set([...authors.values()].flatMap((a) => blockableDomain(a) ?? []))];
  for (const id of await accountsBlockingDomains(recipients, domains)) hiding.add(id);
  return hiding;
}
