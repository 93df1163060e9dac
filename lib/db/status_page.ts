// What rendering a page of statuses reads (lib/render/status.ts): the authors,
// attachments, polls, custom emoji and the viewer's flags and votes of every
// status, in one batch read of mixed keys, each item parsed with its own schema
// when asked for. Reblogged originals that are not on the page are read before
// (statusesByIds), and authors' emoji only once the authors are known.
import { z } from 'zod';
import { accountItem, type Account } from './accounts';
import { emojiItem, type Emoji } from './emojis';
import * as keys from './keys';
import type { Key } from './keys';
import { mediaItem, type Media } from './media';
import { pollItem, pollVoteItem, type Poll, type PollVote } from './polls';
import type { Status } from './statuses';
import { cardItem, type PreviewCard } from './cards';
import { batchGet, keyString, type Parser } from './table';
import { flagsKnownAbsent } from './viewer_summary';
import { knownItem } from './known_items';
import { padId } from '../ids';

const anyItem = z.record(z.string(), z.unknown());
type Loaded = Map<string, Record<string, unknown>>;

/**
 * One batch read of mixed keys (none for an empty list, or when this invocation knows every item:
 * lib/db/known_items.ts); each found item is parsed with its own schema by `pick`.
 */
async function readKeys(list: Key[]): Promise<Loaded> {
  const known: Loaded = new Map();
  const unknown: Key[] = [];
  for (const key of list) {
    const fact = knownItem(key);
    if (!fact) unknown.push(key);
    else if (fact.item) known.set(keyString(key), fact.item);
  }
  if (unknown.length === 0) return known;
  const read = await batchGet(unknown, anyItem);
  for (const [k, item] of known) read.set(k, item);
  return read;
}

function pick<T>(loaded: Loaded, key: Key, parser: Parser<T>): T | undefined {
  const raw = loaded.get(keyString(key));
  return raw === undefined ? undefined : parser.parse(raw);
}

const has = (loaded: Loaded, key: Key) => loaded.has(keyString(key));

/** The viewer's relation to one status, as the Status entity shows it. */
export type ViewerFlags = { favourited: boolean; reblogged: boolean; bookmarked: boolean; pinned: boolean; muted: boolean };

const NO_FLAGS: ViewerFlags = { favourited: false, reblogged: false, bookmarked: false, pinned: false, muted: false };

/** The keys of `viewerId`'s flags on a status: exact-key lookups, so they join the page's batch read. */
function viewerFlagKeys(
  status: Status,
  viewerId: string,
  absent: { bookmarks: boolean; conversationMutes: boolean; flaggedUpTo?: string } = { bookmarks: false, conversationMutes: false },
): Key[] {
  // A status newer than any the viewer ever favourited or reblogged has neither flag (lib/db/viewer_summary.ts).
  const list = absent.flaggedUpTo !== undefined && padId(status.id) > absent.flaggedUpTo ? [] : [keys.favourite(viewerId, status.id), keys.reblogFlag(viewerId, status.id)];
  // A viewer whose account has no bookmarks or thread mutes is not asked for them (lib/db/viewer_summary.ts).
  if (!absent.bookmarks) list.push(keys.bookmark(viewerId, status.id));
  if (!absent.conversationMutes) list.push(keys.conversationMute(viewerId, status.conversationId));
  if (status.accountId === viewerId) list.push(keys.pin(viewerId, status.id));
  if (status.pollId) list.push(keys.pollVote(status.pollId, viewerId));
  return list;
}

function flagsIn(loaded: Loaded, s: Status, viewerId: string): ViewerFlags {
  return {
    favourited: has(loaded, keys.favourite(viewerId, s.id)),
    reblogged: has(loaded, keys.reblogFlag(viewerId, s.id)),
    bookmarked: has(loaded, keys.bookmark(viewerId, s.id)),
    pinned: s.accountId === viewerId && has(loaded, keys.pin(viewerId, s.id)),
    muted: has(loaded, keys.conversationMute(viewerId, s.conversationId)),
  };
}

export type StatusPageItems = {
  account: (accountId: string) => Account | undefined;
  media: (mediaId: string) => Media | undefined;
  poll: (pollId: string) => Poll | undefined;
  /** The viewer's vote on a poll; undefined without a viewer. */
  vote: (pollId: string) => PollVote | undefined;
  /** The viewer's flags on a status; all false without a viewer. */
  flags: (status: Status) => ViewerFlags;
  emoji: (shortcode: string) => Emoji | undefined;
  /** The preview card attached to a status (lib/db/cards.ts), read in this same batch. */
  card: (status: Status) => PreviewCard | undefined;
};

/**
 * Everything `statuses` need to be rendered for `viewerId` (accounts, media,
 * polls, the viewer's flags and votes) and the custom emoji `shortcodes`, in
 * one batch read (100 keys per call).
 */
export async function statusPageItems(statuses: Status[], viewerId: string | undefined, shortcodes: string[]): Promise<StatusPageItems> {
  const wanted: Key[] = [];
  const absent = viewerId ? flagsKnownAbsent(viewerId) : undefined;
  for (const s of statuses) {
    wanted.push(keys.account(s.accountId), ...s.mediaIds.map(keys.media));
    if (s.pollId) wanted.push(keys.poll(s.pollId));
    if (viewerId) wanted.push(...viewerFlagKeys(s, viewerId, absent));
    if (s.cardUrl) wanted.push(keys.card(s.cardUrl));
  }
  wanted.push(...shortcodes.map(keys.emoji));
  const loaded = await readKeys(wanted);
  return {
    account: (id) => pick(loaded, keys.account(id), accountItem),
    media: (id) => pick(loaded, keys.media(id), mediaItem),
    poll: (id) => pick(loaded, keys.poll(id), pollItem),
    vote: (pollId) => (viewerId ? pick(loaded, keys.pollVote(pollId, viewerId), pollVoteItem) : undefined),
    flags: (s) => (viewerId ? flagsIn(loaded, s, viewerId) : NO_FLAGS),
    emoji: (code) => pick(loaded, keys.emoji(code), emojiItem),
    card: (s) => (s.cardUrl ? pick(loaded, keys.card(s.cardUrl), cardItem)?.card : undefined),
  };
}

/** Each viewer's flags on one status, and their vote on its poll (parsed when asked for). */
export type ViewerRead = { flags: ViewerFlags; vote: () => PollVote | undefined };

/**
 * The flags and poll votes of many viewers on a few statuses (a streamed status
 * and its original), in one batch read (100 keys per call; none without viewers).
 */
export async function viewersFlags(viewerIds: string[], statuses: Status[]): Promise<(viewerId: string, status: Status) => ViewerRead> {
  // What each viewer's account said (seeded in this invocation) spares the keys it cannot have: a status newer
  // than any it favourited or reblogged, bookmarks and thread mutes it never made.
  const loaded = await readKeys(viewerIds.flatMap((v) => { const absent = flagsKnownAbsent(v); return statuses.flatMap((s) => viewerFlagKeys(s, v, absent)); }));
  return (viewerId, s) => ({
    flags: flagsIn(loaded, s, viewerId),
    vote: () => (s.pollId ? pick(loaded, keys.pollVote(s.pollId, viewerId), pollVoteItem) : undefined),
  });
}

/** Custom emoji by shortcode, in one batch read (none for an empty list), looked up by exact key. */
export async function emojisByCodes(shortcodes: string[]): Promise<(shortcode: string) => Emoji | undefined> {
  const loaded = await readKeys(shortcodes.map(keys.emoji));
  return (code) => pick(loaded, keys.emoji(code), emojiItem);
}
