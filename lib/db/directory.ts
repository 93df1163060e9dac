// The profile directory's index (GET /api/v1/directory, Mastodon's Api::V1::DirectoriesController):
// every discoverable account has one entry per order, in the partition of its origin, so a page is
// one Query per origin instead of a scan of the accounts. Entries are written where what they sort
// by changes: turning `discoverable` on or off (syncDirectoryListing), and posting, which moves
// the `active` entry inside the posting transaction (directoryActivityItems). Whatever a race
// leaves behind (an entry of an account no longer discoverable, an older `active` entry of an
// account that posted twice at once) is found on read, skipped and removed (removeDirectoryEntries).
import { z } from 'zod';
import type { Account } from './accounts';
import * as keys from './keys';
import type { DirectoryOrigin, Key } from './keys';
import { batchWrite, query, type Item, type TransactItem } from './table';

export type DirectoryOrder = 'active' | 'new';

/** What the index needs of an account: where it lives, whether it is listed, what it sorts by. */
export type Listed = Pick<Account, 'id' | 'domain' | 'discoverable' | 'lastStatusAt'>;

const originOf = (account: Pick<Account, 'domain'>): DirectoryOrigin => (account.domain === null ? 'local' : 'remote');

const newEntryKey = (account: Listed) => keys.directoryNew(originOf(account), account.id);
const activeEntryKey = (account: Listed, lastStatusAt: string | null) => keys.directoryActive(originOf(account), lastStatusAt, account.id);

/**
 * Lists or unlists an account after a profile change: both entries are written while it is discoverable
 * (a rewrite of the same keys when it already was, which also lists an account made discoverable before
 * the index existed), both removed when it stopped being. One BatchWrite; nothing for an account that is
 * not and was not discoverable.
 */
export async function syncDirectoryListing(before: Listed | undefined, after: Listed): Promise<void> {
  if (after.discoverable) {
    await batchWrite([
      { ...newEntryKey(after), accountId: after.id },
      { ...activeEntryKey(after, after.lastStatusAt), accountId: after.id },
    ]);
    return;
  }
  if (!before?.discoverable) return;
  const stale = [newEntryKey(after), activeEntryKey(after, after.lastStatusAt), activeEntryKey(before, before.lastStatusAt)];
  await batchWrite([], [...new Map(stale.map((k) => [`${k.PK}|${k.SK}`, k])).values()]);
}

/**
 * The items that move a discoverable author's `active` entry to `at`, its newest status, for the transaction
 * that sets the account's lastStatusAt (posting, reblogging, storing a remote status); none for other authors.
 * The entry to delete is the one of the lastStatusAt the author was read with.
 */
export function directoryActivityItems(author: Listed | undefined, at: string): TransactItem[] {
  const { puts, deletes } = directoryActivityWrites(author, at);
  return [...deletes.map((Key): TransactItem => ({ Delete: { Key } })), ...puts.map((Item): TransactItem => ({ Put: { Item } }))];
}

/** The same move as plain writes, for a batch (posting moves the entry once the status has committed). */
export function directoryActivityWrites(author: Listed | undefined, at: string): { puts: (Key & { accountId: string })[]; deletes: Key[] } {
  if (!author?.discoverable) return { puts: [], deletes: [] };
  const next = activeEntryKey(author, at);
  const previous = activeEntryKey(author, author.lastStatusAt);
  return {
    // A transaction or batch may touch an item once: a status posted in the same millisecond keeps the entry it has.
    deletes: previous.SK !== next.SK ? [previous] : [],
    puts: [{ ...next, accountId: author.id }],
  };
}

const entryItem = z.object({ PK: z.string(), SK: z.string(), accountId: z.string() });

export type DirectoryEntry = { accountId: string; key: Key };

const partitionOf = (order: DirectoryOrder, origin: DirectoryOrigin) =>
  order === 'new' ? keys.directoryNewPartition(origin) : keys.directoryActivePartition(origin);

/** The first `count` entries of one partition, highest sort key first (a Query page holds thousands of these small items). */
async function firstEntries(partition: string, count: number): Promise<z.infer<typeof entryItem>[]> {
  const out: z.infer<typeof entryItem>[] = [];
  let start: Item | undefined;
  do {
    const page = await query(
      {
        KeyConditionExpression: 'PK = :p',
        ExpressionAttributeValues: { ':p': partition },
        ProjectionExpression: 'PK, SK, accountId',
        ScanIndexForward: false,
        Limit: count - out.length,
        ExclusiveStartKey: start,
      },
      entryItem,
    );
    out.push(...page.items);
    start = page.lastKey;
  } while (start && out.length < count);
  return out;
}

/**
 * The directory's first `count` positions in `order` over `origins` (one Query per origin, more only past
 * thousands of entries), merged: newest first, each account once. `strays` are the older entries of an
 * account seen twice, for the caller to remove.
 */
export async function directoryEntries(order: DirectoryOrder, origins: DirectoryOrigin[], count: number): Promise<{ entries: DirectoryEntry[]; strays: Key[] }> {
  if (count <= 0) return { entries: [], strays: [] };
  const lists = await Promise.all(origins.map((origin) => firstEntries(partitionOf(order, origin), count)));
  // Sort keys of both orders compare across origins: padded ids, or `<time>#<padded id>`.
  const merged = lists.flat().sort((a, b) => (a.SK < b.SK ? 1 : a.SK > b.SK ? -1 : 0));
  const seen = new Set<string>();
  const entries: DirectoryEntry[] = [];
  const strays: Key[] = [];
  for (const item of merged) {
    const key = { PK: item.PK, SK: item.SK };
    if (seen.has(item.accountId)) strays.push(key);
    else {
      seen.add(item.accountId);
      entries.push({ accountId: item.accountId, key });
    }
  }
  return { entries: entries.slice(0, count), strays };
}

/** Removes entries found stale on read (one BatchWrite per 25). */
export async function removeDirectoryEntries(stale: Key[]): Promise<void> {
  if (stale.length > 0) await batchWrite([], stale);
}
