// Whose statuses and notifications a viewer must not see because of blocks,
// mutes and domain blocks (Mastodon's FeedManager#filter?, StatusFilter,
// NotifyService#blocked?): the one place read paths, the fan-out and the notify
// worker ask. An account on a domain the viewer blocks is hidden like a blocked
// one; statuses carry no author domain, so finding those accounts costs one
// batch read of the page's accounts, made only for viewers with domain blocks.
import { z } from 'zod';
import { accountItem, accountsByIds } from '../db/accounts';
import { blockAndMuteSets, muteActive, muteItem } from '../db/blocks';
import { blockableDomain, blockedDomainsAmong } from '../db/domain_blocks';
import { keys } from '../db/keys';
import { statusesByIds, type Status } from '../db/statuses';
import { batchGet, keyString, parseItem } from '../db/table';

export type Hidden = {
  /** Accounts the viewer blocks or is blocked by. */
  blocked: Set<string>;
  /** Accounts the viewer mutes (active mutes only). */
  muted: Set<string>;
  /** Muted accounts whose notifications are hidden too. */
  mutedNotifications: Set<string>;
  /** Domains the viewer blocks (normalised): every account on them is hidden. */
  domains: ReadonlySet<string>;
};

const NO_DOMAINS: ReadonlySet<string> = new Set();
const NOTHING: Hidden = { blocked: new Set(), muted: new Set(), mutedNotifications: new Set(), domains: NO_DOMAINS };

/**
 * The ids of accounts hidden from a viewer, carrying the domains the viewer
 * blocks: `withoutHidden` hides accounts on those domains too. (A Set, so the
 * callers that only test ids keep working.)
 */
export class HiddenAccounts extends Set<string> {
  constructor(
    ids: Iterable<string>,
    readonly domains: ReadonlySet<string> = NO_DOMAINS,
  ) {
    super(ids);
  }
}

/** The viewer's block (with its domain blocks), blocked-by and mute partitions, read whole (one Query each). */
export async function hiddenFor(viewerId: string | undefined): Promise<Hidden> {
  if (!viewerId) return NOTHING;
  const sets = await blockAndMuteSets(viewerId);
  return {
    blocked: new Set([...sets.blocking.map((b) => b.targetAccountId), ...sets.blockedBy.map((b) => b.accountId)]),
    muted: new Set(sets.muting.map((m) => m.targetAccountId)),
    mutedNotifications: new Set(sets.muting.filter((m) => m.notifications).map((m) => m.targetAccountId)),
    domains: sets.blockedDomains.length > 0 ? new Set(sets.blockedDomains) : NO_DOMAINS,
  };
}

/** Every account whose statuses the viewer must not see in timelines: blocked either way, muted, or on a blocked domain. */
export async function hiddenAccountIds(viewerId: string | undefined): Promise<HiddenAccounts> {
  const hidden = await hiddenFor(viewerId);
  return new HiddenAccounts([...hidden.blocked, ...hidden.muted], hidden.domains);
}

/**
 * `hidden` plus the accounts among the authors of `statuses` and the accounts
 * they reply to whose domain is blocked (one batch read of those accounts).
 */
async function withDomainAccounts(hidden: Set<string>, domains: ReadonlySet<string>, statuses: Status[]): Promise<Set<string>> {
  const involved = new Set(statuses.flatMap((s) => (s.inReplyToAccountId !== null ? [s.accountId, s.inReplyToAccountId] : [s.accountId])));
  const accounts = await accountsByIds([...involved].filter((id) => !hidden.has(id)));
  const out = new Set(hidden);
  for (const account of accounts.values()) {
    const domain = blockableDomain(account);
    if (domain !== undefined && domains.has(domain)) out.add(account.id);
  }
  return out;
}

/**
 * Drops statuses written by, reblogging, or replying to a hidden account (with
 * a HiddenAccounts, also those of accounts on its blocked domains). Reads the
 * reblogged originals (one batch read) only when there is something to hide,
 * and the accounts of the page only when there are blocked domains.
 */
export async function withoutHidden(statuses: Status[], hiddenIds: Set<string>): Promise<Status[]> {
  const domains = hiddenIds instanceof HiddenAccounts ? hiddenIds.domains : NO_DOMAINS;
  if ((hiddenIds.size === 0 && domains.size === 0) || statuses.length === 0) return statuses;
  const reblogged = [...new Set(statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))];
  const originals = reblogged.length > 0 ? await statusesByIds(reblogged) : new Map<string, Status>();
  const hidden = domains.size > 0 ? await withDomainAccounts(hiddenIds, domains, [...statuses, ...originals.values()]) : hiddenIds;
  const shows = (s: Status | undefined) => s !== undefined && !hidden.has(s.accountId) && !(s.inReplyToAccountId !== null && hidden.has(s.inReplyToAccountId));
  return statuses.filter((s) => shows(s) && (!s.reblogOfId || !originals.has(s.reblogOfId) || shows(originals.get(s.reblogOfId))));
}

/** The viewer's timeline filter in one call: `withoutHidden` with `hiddenAccountIds`. */
export async function filterHidden(statuses: Status[], viewerId: string | undefined): Promise<Status[]> {
  if (!viewerId || statuses.length === 0) return statuses;
  return withoutHidden(statuses, await hiddenAccountIds(viewerId));
}

const anyItem = z.record(z.unknown());

/**
 * Must `b`'s statuses be hidden from `a` entirely: does either block the other,
 * or does `a` block `b`'s domain? One batch read (with `b`'s account), and one
 * more exact read only when `b` is remote.
 */
export async function blockedBetween(a: string, b: string): Promise<boolean> {
  const account = keys.account(b);
  const found = await batchGet([keys.block(a, b), keys.block(b, a), account], anyItem);
  if (found.has(keyString(keys.block(a, b))) || found.has(keyString(keys.block(b, a)))) return true;
  const domain = blockableDomain(parseItem(accountItem, found.get(keyString(account))));
  return domain !== undefined && (await blockedDomainsAmong(a, [domain])).size > 0;
}

/**
 * Must a notification from `actorId` to `recipientId` not be created? When either
 * blocks the other, the recipient mutes the actor with notifications hidden, or
 * the recipient blocks the actor's domain. One batch read (with the actor's
 * account), and one more exact read only when the actor is remote.
 */
export async function notificationSuppressed(recipientId: string, actorId: string): Promise<boolean> {
  const blocks = keys.block(recipientId, actorId);
  const blockedBy = keys.block(actorId, recipientId);
  const mutes = keys.mute(recipientId, actorId);
  const actor = keys.account(actorId);
  const found = await batchGet([blocks, blockedBy, mutes, actor], anyItem);
  if (found.has(keyString(blocks)) || found.has(keyString(blockedBy))) return true;
  const mute = parseItem(muteItem, found.get(keyString(mutes)));
  if (muteActive(mute) && mute.notifications) return true;
  const domain = blockableDomain(parseItem(accountItem, found.get(keyString(actor))));
  return domain !== undefined && (await blockedDomainsAmong(recipientId, [domain])).size > 0;
}

/** The accounts a status belongs to for hiding: its author and, for a reblog, the original's author. */
export async function authorsOf(status: Status): Promise<string[]> {
  if (!status.reblogOfId) return [status.accountId];
  const original = (await statusesByIds([status.reblogOfId])).get(status.reblogOfId);
  return original && original.accountId !== status.accountId ? [status.accountId, original.accountId] : [status.accountId];
}

/**
 * Which of `recipientIds` must not receive a status of `authorIds` in their home
 * at fan-out: those who block, are blocked by, or mute one of the authors.
 * Domain blocks are not read here: only local authors fan out until federation
 * lands, and home reads hide remote authors on blocked domains (filterHidden).
 * Batch reads of at most 100 keys (three per recipient and author).
 */
export async function recipientsHiding(authorIds: string[], recipientIds: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const candidates = recipientIds.filter((id) => !authorIds.includes(id));
  const perChunk = Math.max(1, Math.floor(100 / (3 * authorIds.length)));
  for (let i = 0; i < candidates.length; i += perChunk) {
    const chunk = candidates.slice(i, i + perChunk);
    const found = await batchGet(
      chunk.flatMap((id) => authorIds.flatMap((a) => [keys.block(id, a), keys.block(a, id), keys.mute(id, a)])),
      anyItem,
    );
    for (const id of chunk) {
      for (const a of authorIds) {
        const mute = parseItem(muteItem, found.get(keyString(keys.mute(id, a))));
        if (found.has(keyString(keys.block(id, a))) || found.has(keyString(keys.block(a, id))) || muteActive(mute)) out.add(id);
      }
    }
  }
  return out;
}

/**
 * Is a notification from `fromAccountId` hidden on read (blocked either way, or
 * muted with notifications)? Domain blocks need no check here: blocking a domain
 * clears its notifications and notificationSuppressed keeps new ones out.
 */
export const notificationHidden = (hidden: Hidden, fromAccountId: string): boolean =>
  hidden.blocked.has(fromAccountId) || hidden.mutedNotifications.has(fromAccountId);
