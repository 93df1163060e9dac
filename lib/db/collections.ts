// Collections (Mastodon 4.6): a curated list of accounts its owner recommends. The collection item holds its
// items (Mastodon's collection_items rows) in one list attribute: at most MAX_ITEMS live ones, so the whole
// collection is one GetItem and a page of them one BatchGet. Every change to the items is conditioned on the
// item's `version`, so two concurrent adds at the limit cannot both pass: the loser re-reads and is refused.
// Beside it: the owner's entry (the owner's collections in one Query, with `discoverable` to filter by), the
// owner's count (the per-account limit, held by a conditional update in the creating transaction) and, per
// featured account, an entry of the collections it is in (GET /api/v1/accounts/:id/in_collections).
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, getItem, keyString, query, queryAll, transact, type TransactItem } from './table';

export const itemStates = ['pending', 'accepted', 'rejected', 'revoked'] as const;
export type ItemState = (typeof itemStates)[number];

export const collectionEntryItem = z.object({
  id: z.string(),
  accountId: z.string(),
  state: z.enum(itemStates),
  position: z.number().int(),
  createdAt: z.string(),
  /** A remote collection's item: its FeaturedItem id (what a Remove names). */
  uri: z.string().nullable().default(null),
  /**
   * Mastodon's approval_uri: the FeatureAuthorization the featured account's server serves, for a remote account
   * featured (in one of our collections, or in a remote one by a third server's account). None for our accounts:
   * theirs is ours to serve (lib/federation/collections_consent.ts).
   */
  approvalUri: z.string().nullable().default(null),
  /** Mastodon's activity_uri: the FeatureRequest asking for it (ours to a remote account, or one received for ours). */
  activityUri: z.string().nullable().default(null),
});
export type CollectionEntry = z.infer<typeof collectionEntryItem>;

export const collectionItem = z.object({
  id: z.string(),
  accountId: z.string(),
  name: z.string(),
  description: z.string().nullable().default(null),
  language: z.string().nullable().default(null),
  sensitive: z.boolean(),
  discoverable: z.boolean(),
  /** The hashtag as the owner wrote it (without `#`), or none. */
  tagName: z.string().nullable().default(null),
  local: z.boolean().default(true),
  /** Its ActivityPub id: a remote collection's FeaturedCollection id, a local one's from lib/federation/urls.ts. */
  uri: z.string().nullable().default(null),
  items: z.array(collectionEntryItem).default([]),
  /** The next item's position (Mastodon's maximum(:position) + 1, never reused). */
  nextPosition: z.number().int().default(1),
  version: z.number().int().default(0),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Collection = z.infer<typeof collectionItem>;

const ownedItem = z.object({ collectionId: z.string(), discoverable: z.boolean() });
const featuredInItem = z.object({ collectionId: z.string(), ownerId: z.string(), itemId: z.string() });
export type FeaturedIn = z.infer<typeof featuredInItem>;

/** Items that count towards MAX_ITEMS and show (Mastodon's pending_or_accepted). */
export const isLive = (entry: Pick<CollectionEntry, 'state'>) => entry.state === 'pending' || entry.state === 'accepted';

const record = (c: Collection) => ({ ...keys.collection(c.id), ...collectionItem.parse(c) });
const ownedRecord = (c: Collection) => ({ ...keys.ownedCollection(c.accountId, c.id), collectionId: c.id, discoverable: c.discoverable });
const featuredInRecord = (c: Collection, entry: CollectionEntry) => ({
  ...keys.featuredIn(entry.accountId, c.id),
  ...featuredInItem.parse({ collectionId: c.id, ownerId: c.accountId, itemId: entry.id }),
});

/** One collection, or undefined. */
export const collectionById = (id: string, consistent = false) => getItem(keys.collection(id), collectionItem, consistent);

/** Collections by id, in the order given, unknown ids left out: one BatchGet. */
export async function collectionsByIds(ids: string[]): Promise<Collection[]> {
  const found = await batchGet(ids.map((id) => keys.collection(id)), collectionItem);
  return ids.flatMap((id) => found.get(keyString(keys.collection(id))) ?? []);
}

export type CreateFailure = 'limit';

/**
 * Creates a collection with its first items in one transaction: the owner's count must stay under `limit`
 * (its conditional update is the limit), and each featured account gets its in-collection entry.
 */
export async function createCollection(c: Collection, limit: number): Promise<{ ok: true } | { failed: CreateFailure }> {
  const items: TransactItem[] = [
    {
      Update: {
        Key: keys.collectionCount(c.accountId),
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      },
    },
    { Put: { Item: record(c), ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: ownedRecord(c) } },
    ...c.items.map((entry): TransactItem => ({ Put: { Item: featuredInRecord(c, entry) } })),
  ];
  const result = await transact(items);
  return result.ok ? { ok: true } : { failed: 'limit' };
}

/** Deletes a collection, its owner entry, the in-collection entries of its live items and one of the owner's count. */
export async function deleteCollection(c: Collection): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.collection(c.id), ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': c.version } } },
    { Delete: { Key: keys.ownedCollection(c.accountId, c.id) } },
    {
      Update: {
        Key: keys.collectionCount(c.accountId),
        UpdateExpression: 'ADD #n :minus',
        ConditionExpression: '#n > :zero',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    },
    ...c.items.filter(isLive).map((entry): TransactItem => ({ Delete: { Key: keys.featuredIn(entry.accountId, c.id) } })),
  ]);
  return result.ok;
}

/** What a versioned write changes besides the collection: in-collection entries added and removed. */
export type EntryChanges = { added?: CollectionEntry[]; removed?: CollectionEntry[] };

/**
 * Replaces the collection item with `next` if nobody changed it since `previous` was read (its version), with
 * the in-collection entries of the items added and removed, in one transaction. False when it changed (or went):
 * the caller reads it again and decides afresh.
 */
export async function saveCollection(previous: Collection, next: Collection, changes: EntryChanges = {}): Promise<boolean> {
  const saved = { ...next, version: previous.version + 1 };
  const owned = previous.discoverable !== next.discoverable ? [{ Put: { Item: ownedRecord(saved) } }] : [];
  const result = await transact([
    {
      Put: {
        Item: record(saved),
        ConditionExpression: 'attribute_exists(PK) AND #v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': previous.version },
      },
    },
    ...owned,
    ...(changes.added ?? []).map((entry): TransactItem => ({ Put: { Item: featuredInRecord(saved, entry) } })),
    ...(changes.removed ?? []).map((entry): TransactItem => ({ Delete: { Key: keys.featuredIn(entry.accountId, saved.id) } })),
  ]);
  if (result.ok) Object.assign(next, { version: saved.version });
  return result.ok;
}

/** The ids of the owner's collections, newest first, with whether each is discoverable: one Query to the end (a few, per the limit). */
export async function ownedCollectionIds(ownerId: string): Promise<{ collectionId: string; discoverable: boolean }[]> {
  return queryAll(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.ownedCollectionsPartition(ownerId) }, ScanIndexForward: false },
    ownedItem,
  );
}

/** How many collections the owner has (the limit's counter). */
export async function collectionCountOf(ownerId: string): Promise<number> {
  const item = await getItem(keys.collectionCount(ownerId), z.object({ count: z.number().int() }));
  return item?.count ?? 0;
}

/**
 * The first `offset + limit + 1` entries of the collections an account is featured in, newest collection first:
 * one Query (the extra one tells whether more follow).
 */
export async function featuredInEntries(accountId: string, offset: number, limit: number): Promise<{ entries: FeaturedIn[]; more: boolean }> {
  const page = await query(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.featuredInPartition(accountId) }, ScanIndexForward: false, Limit: offset + limit + 1 },
    featuredInItem,
  );
  return { entries: page.items.slice(offset, offset + limit), more: page.items.length > offset + limit };
}

const anyItem = z.record(z.string(), z.unknown());

/** Does `accountId` block `targetId` (one way, one exact read)? What CollectionPolicy#show? asks of the owner. */
export async function blocks(accountId: string, targetId: string): Promise<boolean> {
  return (await getItem(keys.block(accountId, targetId), anyItem)) !== undefined;
}

/** Which of `targetIds` the viewer blocks (Collection#items_for leaves them out): batch reads of their block keys. */
export async function blockedAmong(viewerId: string, targetIds: string[]): Promise<Set<string>> {
  if (targetIds.length === 0) return new Set();
  const found = await batchGet(targetIds.map((t) => keys.block(viewerId, t)), anyItem);
  return new Set(targetIds.filter((t) => found.has(keyString(keys.block(viewerId, t)))));
}
