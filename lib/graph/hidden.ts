// Whose statuses and notifications a viewer must not see because of blocks and
// mutes (Mastodon's FeedManager#filter?, StatusFilter, NotifyService#blocked?):
// the one place read paths, the fan-out and the notify worker ask.
import { z } from 'zod';
import { blockAndMuteSets, muteActive, muteItem } from '../db/blocks';
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
};

const NOTHING: Hidden = { blocked: new Set(), muted: new Set(), mutedNotifications: new Set() };

/** The viewer's block, blocked-by and mute partitions, read whole (one Query each). */
export async function hiddenFor(viewerId: string | undefined): Promise<Hidden> {
  if (!viewerId) return NOTHING;
  const sets = await blockAndMuteSets(viewerId);
  return {
    blocked: new Set([...sets.blocking.map((b) => b.targetAccountId), ...sets.blockedBy.map((b) => b.accountId)]),
    muted: new Set(sets.muting.map((m) => m.targetAccountId)),
    mutedNotifications: new Set(sets.muting.filter((m) => m.notifications).map((m) => m.targetAccountId)),
  };
}

/** Every account whose statuses the viewer must not see in timelines: blocked either way, or muted. */
export async function hiddenAccountIds(viewerId: string | undefined): Promise<Set<string>> {
  const hidden = await hiddenFor(viewerId);
  return new Set([...hidden.blocked, ...hidden.muted]);
}

/**
 * Drops statuses written by, reblogging, or replying to a hidden account. Reads
 * the reblogged originals (one batch read) only when there is something to hide.
 */
export async function withoutHidden(statuses: Status[], hidden: Set<string>): Promise<Status[]> {
  if (hidden.size === 0 || statuses.length === 0) return statuses;
  const reblogged = [...new Set(statuses.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))];
  const originals = reblogged.length > 0 ? await statusesByIds(reblogged) : new Map<string, Status>();
  const shows = (s: Status | undefined) => s !== undefined && !hidden.has(s.accountId) && !(s.inReplyToAccountId !== null && hidden.has(s.inReplyToAccountId));
  return statuses.filter((s) => shows(s) && (!s.reblogOfId || !originals.has(s.reblogOfId) || shows(originals.get(s.reblogOfId))));
}

/** The viewer's timeline filter in one call: `withoutHidden` with `hiddenAccountIds`. */
export async function filterHidden(statuses: Status[], viewerId: string | undefined): Promise<Status[]> {
  if (!viewerId || statuses.length === 0) return statuses;
  return withoutHidden(statuses, await hiddenAccountIds(viewerId));
}

const anyItem = z.record(z.unknown());

/** Does either account block the other? One batch read. */
export async function blockedBetween(a: string, b: string): Promise<boolean> {
  const found = await batchGet([keys.block(a, b), keys.block(b, a)], anyItem);
  return found.size > 0;
}

/**
 * Must a notification from `actorId` to `recipientId` not be created? When either
 * blocks the other, or the recipient mutes the actor with notifications hidden.
 */
export async function notificationSuppressed(recipientId: string, actorId: string): Promise<boolean> {
  const blocks = keys.block(recipientId, actorId);
  const blockedBy = keys.block(actorId, recipientId);
  const mutes = keys.mute(recipientId, actorId);
  const found = await batchGet([blocks, blockedBy, mutes], anyItem);
  if (found.has(keyString(blocks)) || found.has(keyString(blockedBy))) return true;
  const mute = parseItem(muteItem, found.get(keyString(mutes)));
  return muteActive(mute) && mute.notifications;
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

/** Is a notification from `fromAccountId` hidden on read (blocked either way, or muted with notifications)? */
export const notificationHidden = (hidden: Hidden, fromAccountId: string): boolean =>
  hidden.blocked.has(fromAccountId) || hidden.mutedNotifications.has(fromAccountId);
