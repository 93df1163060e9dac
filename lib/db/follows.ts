// Follow edges, stored once (PK the follower, SK the followed account) and read
// the other way through GSI1. The schema and the batch edge lookup are shared
// by visibility rules, relationships and the fan-out.
import { z } from 'zod';
import type { Page } from '../paging';
import { accountItem, type Account } from './accounts';
import { accountNoteItem } from './account_notes';
import { blockItem, muteActive, muteItem, type Mute } from './blocks';
import { blockableDomain, blockedDomainsAmong } from './domain_blocks';
import { countFollowerInbox } from './follower_inboxes';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import type { Key } from './keys';
import * as gsi1 from './gsi1';
import { batchGet, getItem, keyString, parseItem, transact, updateItem, type Parser, type TransactItem } from './table';

export const followItem = z.object({
  id: z.string(),
  followerId: z.string(),
  followedId: z.string(),
  /** `reblogs: false` follows keep the followed account's reblogs out of the follower's home. */
  showReblogs: z.boolean().default(true),
  notify: z.boolean().default(false),
  createdAt: z.string(),
  /** The follower is a remote actor: it has no home here, so the fan-out skips it (its server gets our Create). */
  followerRemote: z.boolean().optional(),
  /** For a remote follower, the inbox counted under FOLLOWER_INBOXES when the edge was made: what deleting it takes one off. */
  followerInbox: z.string().optional(),
  /** The ActivityPub id of the Follow behind an edge that crosses servers (an Undo or Accept names it). */
  activityId: z.string().optional(),
});
export type Follow = z.infer<typeof followItem>;

export const followRecord = (follow: Follow) => ({
  ...keys.follow(follow.followerId, follow.followedId),
  ...gsi1.follower(follow.followedId, follow.followerId),
  ...followItem.parse(follow),
});

export const followEdge = (followerId: string, followedId: string) => getItem(keys.follow(followerId, followedId), followItem);

/** Which of `followedIds` does `followerId` follow? One batch read. */
export async function followEdges(followerId: string, followedIds: string[]): Promise<Map<string, Follow>> {
  const found = await batchGet(followedIds.map((id) => keys.follow(followerId, id)), followItem);
  const byFollowed = new Map<string, Follow>();
  for (const edge of found.values()) byFollowed.set(edge.followedId, edge);
  return byFollowed;
}

// ---- follow requests, follow/unfollow transactions, relationship reads, lists ----

/** A pending request to follow a locked account; becomes a follow edge when authorized. */
export const followRequestItem = z.object({
  id: z.string(),
  accountId: z.string(),
  targetAccountId: z.string(),
  showReblogs: z.boolean().default(true),
  notify: z.boolean().default(false),
  createdAt: z.string(),
  /**
   * The ActivityPub id of the Follow behind a request that crosses servers: ours to a remote account (its
   * Undo names it), or a remote account's to us (our Accept/Reject embeds it).
   */
  activityId: z.string().optional(),
});
export type FollowRequest = z.infer<typeof followRequestItem>;

export const followRequestRecord = (request: FollowRequest) => ({
  ...keys.followRequest(request.accountId, request.targetAccountId),
  ...gsi1.followRequestReceived(request.targetAccountId, request.id),
  ...followRequestItem.parse(request),
});

/** Options of the follow transactions for a remote follower: the inbox its deliveries go to (shared inbox when it has one). */
export type FollowEdgeOptions = { followerInbox?: string };

/** The edge as stored: a remote follower's carries `followerRemote` and the inbox it is counted under. */
export const withFollowerInbox = (follow: Follow, opts: FollowEdgeOptions): Follow =>
  opts.followerInbox ? { ...follow, followerRemote: true, followerInbox: opts.followerInbox } : follow;

const bump = (accountId: string, counter: 'followersCount' | 'followingCount' | 'followRequestsCount', by: 1 | -1): TransactItem => ({
  Update: {
    Key: keys.account(accountId),
    UpdateExpression: 'ADD #c :by',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#c': counter },
    ExpressionAttributeValues: { ':by': by },
  },
});

/**
 * Writes a follow edge and both counters in one transaction. Answers false,
 * having written nothing, when the edge already exists (or an account vanished).
 * A remote follower (`followerInbox`) is counted under its inbox in the same transaction.
 */
export async function createFollow(follow: Follow, opts: FollowEdgeOptions = {}): Promise<boolean> {
  const result = await transact([
    { Put: { Item: followRecord(withFollowerInbox(follow, opts)), ConditionExpression: 'attribute_not_exists(PK)' } },
    bump(follow.followerId, 'followingCount', 1),
    bump(follow.followedId, 'followersCount', 1),
    ...(opts.followerInbox ? [countFollowerInbox(follow.followedId, opts.followerInbox, 1)] : []),
  ]);
  return result.ok;
}

/**
 * Writes a follow request and the target's request counter in one transaction,
 * unless the requester already follows the target or already asked.
 */
export async function createFollowRequest(request: FollowRequest): Promise<boolean> {
  const result = await transact([
    { Put: { Item: followRequestRecord(request), ConditionExpression: 'attribute_not_exists(PK)' } },
    { ConditionCheck: { Key: keys.follow(request.accountId, request.targetAccountId), ConditionExpression: 'attribute_not_exists(PK)' } },
    bump(request.targetAccountId, 'followRequestsCount', 1),
  ]);
  return result.ok;
}

export type FollowOptions = { showReblogs?: boolean; notify?: boolean };

/** Changes the options given (only those) on an existing edge or request; undefined if it is gone. */
async function setOptions<T>(key: Key, parser: Parser<T>, options: FollowOptions): Promise<T | undefined> {
  const entries = Object.entries(options).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return getItem(key, parser, true);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = entries.map(([k, v], i) => {
    names[`#o${i}`] = k;
    values[`:o${i}`] = v;
    return `#o${i} = :o${i}`;
  });
  return updateItem(
    { Key: key, UpdateExpression: `SET ${sets.join(', ')}`, ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeNames: names, ExpressionAttributeValues: values },
    parser,
  );
}

export const setFollowOptions = (followerId: string, followedId: string, options: FollowOptions) =>
  setOptions(keys.follow(followerId, followedId), followItem, options);

export const setFollowRequestOptions = (requesterId: string, targetId: string, options: FollowOptions) =>
  setOptions(keys.followRequest(requesterId, targetId), followRequestItem, options);

/**
 * Deletes the edge and decrements both counters, only if the edge existed. Answers whether it did.
 * For a remote follower pass the inbox the edge was counted under (`edge.followerInbox`): it is taken
 * off in the same transaction. The follower's endorsement of the account goes with it (lib/db/endorsements.ts),
 * as Mastodon's Follow#remove_endorsements.
 */
export async function deleteFollow(followerId: string, followedId: string, opts: FollowEdgeOptions = {}): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.follow(followerId, followedId), ConditionExpression: 'attribute_exists(PK)' } },
    bump(followerId, 'followingCount', -1),
    bump(followedId, 'followersCount', -1),
    { Delete: { Key: keys.endorsement(followerId, followedId) } },
    ...(opts.followerInbox ? [countFollowerInbox(followedId, opts.followerInbox, -1)] : []),
  ]);
  return result.ok;
}

/** Withdraws a pending request and decrements the target's request counter, only if it existed. */
export async function deleteFollowRequest(requesterId: string, targetId: string): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.followRequest(requesterId, targetId), ConditionExpression: 'attribute_exists(PK)' } },
    bump(targetId, 'followRequestsCount', -1),
  ]);
  return result.ok;
}

/** Everything a Relationship needs between `viewerId` and each of `ids`. */
export type GraphState = {
  account: Account | undefined;
  following: Follow | undefined;
  followedBy: Follow | undefined;
  requested: FollowRequest | undefined;
  requestedBy: FollowRequest | undefined;
  /** Blocks and mutes (lib/db/blocks.ts), when read with the rest. */
  blocking?: boolean;
  blockedBy?: boolean;
  muting?: Mute | undefined;
  /** The viewer blocks the account's domain (lib/db/domain_blocks.ts); never for local accounts. */
  domainBlocking?: boolean;
  /** The viewer's private note about the account (lib/db/account_notes.ts), read in the same batch. */
  note?: string;
  /** The viewer endorses the account (lib/db/endorsements.ts), read in the same batch; only while it follows it. */
  endorsed?: boolean;
};

const anyItem = z.record(z.unknown());

/**
 * One batch read for the accounts, the edges in both directions, the pending
 * requests in both directions, blocks, mutes, the viewer's notes and endorsements between the viewer and each id; a second one, of
 * the viewer's domain blocks, only when some of the accounts are remote.
 */
export async function graphStates(viewerId: string, ids: string[]): Promise<Map<string, GraphState>> {
  const wanted = ids.flatMap((id) => [
    keys.account(id),
    keys.follow(viewerId, id),
    keys.follow(id, viewerId),
    keys.followRequest(viewerId, id),
    keys.followRequest(id, viewerId),
    keys.block(viewerId, id),
    keys.block(id, viewerId),
    keys.mute(viewerId, id),
    keys.accountNote(viewerId, id),
    keys.endorsement(viewerId, id),
  ]);
  const found = await batchGet(wanted, anyItem);
  const read = <T>(key: Key, parser: Parser<T>): T | undefined => parseItem(parser, found.get(keyString(key)));
  const accounts = new Map(ids.map((id) => [id, read(keys.account(id), accountItem)]));
  const domainOf = (id: string) => blockableDomain(accounts.get(id));
  const blockedDomains = await blockedDomainsAmong(viewerId, [...new Set(ids.flatMap((id) => domainOf(id) ?? []))]);
  const states = new Map<string, GraphState>();
  for (const id of ids) {
    const domain = domainOf(id);
    states.set(id, {
      account: accounts.get(id),
      following: read(keys.follow(viewerId, id), followItem),
      followedBy: read(keys.follow(id, viewerId), followItem),
      requested: read(keys.followRequest(viewerId, id), followRequestItem),
      requestedBy: read(keys.followRequest(id, viewerId), followRequestItem),
      blocking: read(keys.block(viewerId, id), blockItem) !== undefined,
      blockedBy: read(keys.block(id, viewerId), blockItem) !== undefined,
      muting: ((m) => (muteActive(m) ? m : undefined))(read(keys.mute(viewerId, id), muteItem)),
      domainBlocking: domain !== undefined && blockedDomains.has(domain),
      note: read(keys.accountNote(viewerId, id), accountNoteItem)?.comment,
      // A block or a domain block removes follows in transactions of their own: an endorsement left behind shows as none.
      endorsed: found.has(keyString(keys.endorsement(viewerId, id))) && found.has(keyString(keys.follow(viewerId, id))),
    });
  }
  return states;
}

/** Accounts `accountId` follows, newest account id first (the edge's sort key is the followed id). */
export const followingPage = (accountId: string, page: Page): Promise<Follow[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.followingPartition(accountId) }, page, followItem);

/** Accounts following `accountId`, newest account id first (GSI1 inverts the edge). */
export const followersPage = (accountId: string, page: Page): Promise<Follow[]> =>
  queryIdRange({ index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.followersPartition(accountId) }, page, followItem);
