// Blocks and mutes. A block is stored once (PK the blocker, SK the blocked
// account) and read the other way through GSI1 (who blocks me); a mute is stored
// once under the muting account. A block's transaction also removes the follow
// edges and pending follow requests in both directions, with exact counters.
// The blocking partition also holds the account's domain blocks (SK `DOMAIN#…`,
// lib/db/domain_blocks.ts), so one Query reads both.
import { z } from 'zod';
import type { Page } from '../paging';
import { ID_WIDTH } from '../ids';
import { accountItem, type Account } from './accounts';
import { domainBlockItem } from './domain_blocks';
import { countFollowerInbox } from './follower_inboxes';
import type { GraphState } from './follows';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import type { Key } from './keys';
import * as gsi1 from './gsi1';
import { batchGet, deleteItem, keyString, parseItem, putItem, queryAll, transact, type TransactItem } from './table';
import { flagSets, markHides, noteMarked, scopeKeys, type HideFlag } from './viewer_summary';
import { oncePerRequest } from '../request_scope';

export const blockItem = z.object({
  id: z.string(),
  accountId: z.string(),
  targetAccountId: z.string(),
  createdAt: z.string(),
});
export type Block = z.infer<typeof blockItem>;

export const muteItem = z.object({
  id: z.string(),
  accountId: z.string(),
  targetAccountId: z.string(),
  /** Mastodon's `hide_notifications`: the muted account's notifications are dropped too. */
  notifications: z.boolean().default(true),
  /** Epoch seconds after which the mute no longer applies (the table's TTL removes it later); null: forever. */
  expiresAt: z.number().int().nullable().default(null),
  createdAt: z.string(),
});
export type Mute = z.infer<typeof muteItem>;

/** A mute applies until its expiry (TTL deletion is lazy, so reads check it). */
export const muteActive = (mute: Mute | undefined, now = Date.now()): mute is Mute =>
  mute !== undefined && (mute.expiresAt === null || mute.expiresAt * 1000 > now);

export const blockRecord = (block: Block) => ({
  ...keys.block(block.accountId, block.targetAccountId),
  ...gsi1.blockedBy(block.targetAccountId, block.accountId),
  ...blockItem.parse(block),
});

export const muteRecord = (mute: Mute) => ({
  ...keys.mute(mute.accountId, mute.targetAccountId),
  // Who mutes an account, read only by the purge of that account (lib/db/account_purge.ts).
  ...gsi1.mutedBy(mute.targetAccountId, mute.accountId),
  ...muteItem.parse(mute),
});

type Counter = 'followersCount' | 'followingCount' | 'followRequestsCount';

/** One Update per account (a transaction may touch an item once) decrementing each counter named. */
/** One update per account: its counters decremented and its hide flags set (lib/db/viewer_summary.ts), in one item each. */
const accountUpdates = (byAccount: Map<string, Counter[]>, flags: Map<string, HideFlag[]>): TransactItem[] =>
  [...new Set([...byAccount.keys(), ...flags.keys()])].map((accountId) => {
    const counters = byAccount.get(accountId) ?? [];
    const names: Record<string, string> = {};
    const values: Record<string, number | boolean> = {};
    const adds = [...new Set(counters)].map((counter, i) => {
      names[`#c${i}`] = counter;
      values[`:by${i}`] = -counters.filter((c) => c === counter).length;
      return `#c${i} :by${i}`;
    });
    const marked = flagSets(flags.get(accountId) ?? []);
    Object.assign(names, marked.names);
    Object.assign(values, marked.values);
    const expression = [marked.sets.length > 0 ? `SET ${marked.sets.join(', ')}` : '', adds.length > 0 ? `ADD ${adds.join(', ')}` : ''].filter(Boolean).join(' ');
    return {
      Update: {
        Key: keys.account(accountId),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  });

const mustExist = (Key: Key): TransactItem => ({ Delete: { Key, ConditionExpression: 'attribute_exists(PK)' } });
const mustBeAbsent = (Key: Key): TransactItem => ({ ConditionCheck: { Key, ConditionExpression: 'attribute_not_exists(PK)' } });

/** What sits between the two accounts when the block is written (read just before). */
export type Severed = {
  following: boolean;
  followedBy: boolean;
  requested: boolean;
  requestedBy: boolean;
  /** A remote follower's inbox (its edge's `followerInbox`): it is taken off the blocker's follower inboxes too. */
  followedByInbox?: string;
  /** A remote blocker's own edge's `followerInbox` (a received Block): taken off the blocked account's follower inboxes. */
  followingInbox?: string;
};

/**
 * What a block between the viewer of `state` and its account severs, as read (lib/db/follows.ts graphStates).
 * Only an edge whose follower is remote carries a `followerInbox`: the viewer's follower's when the viewer is ours
 * and blocks, the viewer's own when a remote viewer's Block is received.
 */
export const severedBy = (state: Pick<GraphState, 'following' | 'followedBy' | 'requested' | 'requestedBy'>): Severed => ({
  following: state.following !== undefined,
  followedBy: state.followedBy !== undefined,
  requested: state.requested !== undefined,
  requestedBy: state.requestedBy !== undefined,
  followedByInbox: state.followedBy?.followerInbox,
  followingInbox: state.following?.followerInbox,
});

/**
 * Writes the block and removes, in the same transaction, exactly the edges and
 * requests `severed` says exist (each delete conditioned on its existence, each
 * absent one checked absent), so the counters stay exact. False when the state
 * changed meanwhile: the caller reads again and retries.
 */
export async function createBlock(block: Block, severed: Severed): Promise<boolean> {
  const a = block.accountId;
  const b = block.targetAccountId;
  const items: TransactItem[] = [{ Put: { Item: blockRecord(block) } }];
  const counters = new Map<string, Counter[]>();
  const bump = (accountId: string, counter: Counter) => counters.set(accountId, [...(counters.get(accountId) ?? []), counter]);
  const edge = (exists: boolean, followerId: string, followedId: string) => {
    if (!exists) return items.push(mustBeAbsent(keys.follow(followerId, followedId)));
    items.push(mustExist(keys.follow(followerId, followedId)));
    // The follower's endorsement goes with its follow, as on unfollowing (follows.deleteFollow).
    items.push({ Delete: { Key: keys.endorsement(followerId, followedId) } });
    bump(followerId, 'followingCount');
    bump(followedId, 'followersCount');
  };
  const request = (exists: boolean, requesterId: string, targetId: string) => {
    if (!exists) return items.push(mustBeAbsent(keys.followRequest(requesterId, targetId)));
    items.push(mustExist(keys.followRequest(requesterId, targetId)));
    bump(targetId, 'followRequestsCount');
  };
  edge(severed.following, a, b);
  edge(severed.followedBy, b, a);
  if (severed.followedBy && severed.followedByInbox) items.push(countFollowerInbox(a, severed.followedByInbox, -1));
  if (severed.following && severed.followingInbox) items.push(countFollowerInbox(b, severed.followingInbox, -1));
  request(severed.requested, a, b);
  request(severed.requestedBy, b, a);
  // The blocker has blocks and the blocked has been blocked from now on (lib/db/viewer_summary.ts).
  const flags = new Map<string, HideFlag[]>([[a, ['hasBlocks']], [b, ['hasBlockedBy']]]);
  const ok = (await transact([...items, ...accountUpdates(counters, flags)])).ok;
  noteMarked(a, ['hasBlocks']);
  noteMarked(b, ['hasBlockedBy']);
  return ok;
}

export const deleteBlock = (accountId: string, targetId: string) => deleteItem(keys.block(accountId, targetId), blockItem);

/** Writes a mute, and marks the muting account as having mutes in the same transaction. */
export async function putMute(mute: Mute): Promise<void> {
  const result = await transact([{ Put: { Item: muteRecord(mute) } }, markHides(mute.accountId, ['hasMutes'])]);
  noteMarked(mute.accountId, ['hasMutes']);
  if (!result.ok) throw new Error(`mute not written: ${result.failed.join(', ')}`);
}

export const deleteMute = (accountId: string, targetId: string) => deleteItem(keys.mute(accountId, targetId), muteItem);

/** A max_id above every id: keeps the range of account blocks below the `DOMAIN#` items sharing their partition. */
const ABOVE_EVERY_ID = (10n ** BigInt(ID_WIDTH)).toString();

/** Accounts `accountId` blocks, newest account id first. */
export const blocksPage = (accountId: string, page: Page): Promise<Block[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.blockingPartition(accountId) }, { ...page, max_id: page.max_id ?? ABOVE_EVERY_ID }, blockItem);

/** Accounts `accountId` mutes (expired mutes left out), newest account id first. */
export const mutesPage = (accountId: string, page: Page): Promise<Mute[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.mutingPartition(accountId) }, page, muteItem, {
    accept: async (items) => items.filter((m) => muteActive(m)),
  });

/** The blocking partition holds account blocks (SK an account id) and domain blocks (SK `DOMAIN#…`, lib/db/domain_blocks.ts). */
const blockingEntry = z.union([domainBlockItem, blockItem]);

/**
 * Every block of, every block against, and every active mute of `accountId`,
 * with the domains it blocks read in the same Query as its blocks (one Query
 * per partition, in parallel, paged to the end).
 */
export async function blockAndMuteSets(accountId: string): Promise<{ blocking: Block[]; blockedBy: Block[]; muting: Mute[]; blockedDomains: string[] }> {
  // Each partition once per invocation, and not at all when the viewer's account says it is empty.
  const [entries, blockedBy, muting] = await Promise.all([
    oncePerRequest(scopeKeys.blocking(accountId), () =>
      queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.blockingPartition(accountId) } }, blockingEntry),
    ),
    oncePerRequest(scopeKeys.blockedBy(accountId), () =>
      queryAll(
        { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': gsi1.blockedByPartition(accountId) } },
        blockItem,
      ),
    ),
    oncePerRequest(scopeKeys.muting(accountId), () =>
      queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.mutingPartition(accountId) } }, muteItem),
    ),
  ]);
  return {
    blocking: entries.flatMap((e) => ('targetAccountId' in e ? [e] : [])),
    blockedBy,
    muting: muting.filter((m) => muteActive(m)),
    blockedDomains: entries.flatMap((e) => ('domain' in e ? [e.domain] : [])),
  };
}

// ---- exact-key reads of how two accounts stand (lib/policy/hidden.ts) ----

const anyItem = z.record(z.unknown());

/** How `a` stands towards `b`: blocks either way, `a`'s mute of `b` (when asked for), and `b`'s account (parsed when asked for). */
export type Standing = { blockedEitherWay: boolean; mute: Mute | undefined; account: () => Account | undefined };

/** The blocks between `a` and `b` both ways, `a`'s mute of `b` if `withMute`, and `b`'s account: one batch read. */
export async function standingBetween(a: string, b: string, withMute: boolean): Promise<Standing> {
  const mute = keys.mute(a, b);
  const account = keys.account(b);
  const found = await batchGet([keys.block(a, b), keys.block(b, a), ...(withMute ? [mute] : []), account], anyItem);
  return {
    blockedEitherWay: found.has(keyString(keys.block(a, b))) || found.has(keyString(keys.block(b, a))),
    mute: withMute ? parseItem(muteItem, found.get(keyString(mute))) : undefined,
    account: () => parseItem(accountItem, found.get(keyString(account))),
  };
}

/**
 * Which of `recipientIds` block, are blocked by, or actively mute one of
 * `authorIds`: batch reads of at most 100 keys (three per recipient and author).
 */
export async function blockingOrMutingAny(authorIds: string[], recipientIds: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const perChunk = Math.max(1, Math.floor(100 / (3 * authorIds.length)));
  for (let i = 0; i < recipientIds.length; i += perChunk) {
    const chunk = recipientIds.slice(i, i + perChunk);
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
