// Interactions of an account with a status: favourites, reblogs, bookmarks, pins
// and conversation mutes. Each one is a flag item looked up by exact key when
// rendering (favourited, reblogged, ...) plus, where a list is shown, list items
// ordered by the interaction's own id. Every change of a flag and its list items is
// one transaction: the flag's condition decides whether anything happens, so
// repeating an action changes nothing and counts nothing.
//
// Counters (issue 27). The status's favouritesCount and reblogsCount are NOT in that
// transaction: every favourite of a viral post would then touch the one status item,
// and DynamoDB cancels transactions that touch an item another one holds
// (TransactionConflict), so most of a burst failed after their retries. The
// transaction writes only items of the acting account (the flag, the list entries,
// its own counters), which concurrent accounts never share, and marks the flag
// `uncounted`; then countFlag claims the mark (a conditional UpdateItem of the flag
// removing it) and, only when it won the claim, moves the status's count with a
// single-item `ADD` (DynamoDB serialises single-item updates: they never conflict).
// Whoever removes the mark counts, so the count moves once per flag however often a
// request is retried. A taken-back flag is counted down only if it was counted (its
// Delete is conditioned on the mark as read). An invocation that ends between the
// transaction and the claim leaves the mark: the next favourite or reblog of the same
// status by the account (a client's retry) counts it, an unfavourite drops it
// uncounted. One that ends between the claim and the ADD loses that one count: the
// only inexactness left, chosen over counting twice. Sharded counters summed on read
// were the other way; they would add reads to every rendered status.
import { z } from 'zod';
import type { Page } from '../paging';
import { newId } from '../ids';
import { directoryActivityItems, type Listed } from './directory';
import { queryIdRange, type RangeTarget } from './id_range';
import * as keys from './keys';
import { putFanoutOwed } from './fanout_owed';
import { statusUriPointer } from './remote';
import { statusRecord, type Status } from './statuses';
import { homeEntryRecord } from './timelines';
import { batchWrite, deleteItem, getItem, nowIso, putItem, query, queryAll, transact, updateItem, type TransactItem } from './table';
import { flagBoundRaise, markHides, noteFlagged, noteMarked } from './viewer_summary';
import type { Account } from './accounts';

/** A flag item: the account did this to the status; `id` is the interaction's own id (list order). */
export const interactionItem = z.object({
  id: z.string(),
  accountId: z.string(),
  statusId: z.string(),
  createdAt: z.string(),
  /** Set by the transaction that writes the flag, removed by whoever moves the status's count for it (countFlag). */
  uncounted: z.boolean().optional(),
});
export type Interaction = z.infer<typeof interactionItem>;

/** A reblog flag also names the reblog status it created. */
export const reblogFlagItem = interactionItem.extend({ reblogId: z.string() });
export type ReblogFlag = z.infer<typeof reblogFlagItem>;

/** A list entry (who favourited / reblogged a status, what an account favourited / bookmarked / pinned). */
export const listEntryItem = z.object({
  id: z.string(),
  accountId: z.string(),
  statusId: z.string(),
  /** Reblog list entries carry the reblog's visibility: private reblogs are not listed in reblogged_by. */
  visibility: z.string().optional(),
});
export type ListEntry = z.infer<typeof listEntryItem>;

export const conversationMuteItem = z.object({ accountId: z.string(), conversationId: z.string(), createdAt: z.string() });

const ifAbsent = 'attribute_not_exists(PK)';
const ifPresent = 'attribute_exists(PK)';

type Counter = 'favouritesCount' | 'reblogsCount';

/**
 * Moves the status's count for a flag written `uncounted`: claims the mark, then ADDs. Answers false when the
 * status is gone (nothing counted; the caller undoes the flag), true otherwise (counted here, or by another).
 */
async function countFlag(flagKey: keys.Key, flagId: string, statusId: string, counter: Counter): Promise<boolean> {
  const claimed = await updateItem(
    {
      Key: flagKey,
      UpdateExpression: 'REMOVE uncounted',
      ConditionExpression: 'attribute_exists(uncounted) AND id = :id',
      ExpressionAttributeValues: { ':id': flagId },
    },
    claimedItem,
  );
  if (!claimed) return true;
  return moveCount(statusId, counter, 1);
}
const claimedItem = z.object({ PK: z.string() });

/** A single-item ADD on the status (never onto a status that is gone: that would leave a stub behind). */
async function moveCount(statusId: string, counter: Counter, delta: 1 | -1): Promise<boolean> {
  const moved = await updateItem(
    {
      Key: keys.status(statusId),
      UpdateExpression: 'ADD #c :d',
      ConditionExpression: ifPresent,
      ExpressionAttributeNames: { '#c': counter },
      ExpressionAttributeValues: { ':d': delta },
    },
    claimedItem,
  );
  return moved !== undefined;
}

/** The Delete of a flag as it was read: same id, and counted or not as it was, so the caller knows whether to count down. */
const deleteFlagAsRead = (key: keys.Key, flag: { uncounted?: boolean }, match: { attr: 'id' | 'reblogId'; value: string }): TransactItem => ({
  Delete: {
    Key: key,
    ConditionExpression: `#m = :m AND ${flag.uncounted ? 'attribute_exists(uncounted)' : 'attribute_not_exists(uncounted)'}`,
    ExpressionAttributeNames: { '#m': match.attr },
    ExpressionAttributeValues: { ':m': match.value },
  },
});

/** Reads of a flag to take back before giving up: each is one concurrent claim or toggle seen between read and Delete. */
const FLAG_READS = 4;

/** Outcome of a toggle: whether this call changed anything, or the status vanished meanwhile. */
export type Toggle = 'changed' | 'unchanged' | 'gone';

// ---- favourites ----

export const favouriteOf = (accountId: string, statusId: string) => getItem(keys.favourite(accountId, statusId), interactionItem, true);

/**
 * Favourites a status. `viewer`: the account as this request read it (or only its id), whose `flaggedUpTo`
 * the transaction raises to the status when it is newer (lib/db/viewer_summary.ts).
 */
export async function addFavourite(viewer: Pick<Account, 'id' | 'flaggedUpTo'> | string, statusId: string): Promise<Toggle> {
  const accountId = typeof viewer === 'string' ? viewer : viewer.id;
  const fav: Interaction = { id: newId(), accountId, statusId, createdAt: nowIso(), uncounted: true };
  const entry = { id: fav.id, accountId, statusId };
  const writes: TransactItem[] = [
    { Put: { Item: { ...keys.favourite(accountId, statusId), ...fav }, ConditionExpression: ifAbsent } },
    { Put: { Item: { ...keys.statusFavourites(statusId, fav.id), ...entry } } },
    { Put: { Item: { ...keys.accountFavourites(accountId, fav.id), ...entry } } },
  ];
  const raise = flagBoundRaise(typeof viewer === 'string' ? undefined : viewer, statusId);
  const bound: TransactItem | undefined = raise && {
    Update: { Key: keys.account(accountId), UpdateExpression: `SET ${raise.set}`, ConditionExpression: raise.condition, ExpressionAttributeValues: raise.values },
  };
  const result = await flagWithBound(accountId, writes, bound && { items: [...writes, bound], index: writes.length });
  if (!result.ok) {
    if (!result.failed.includes(0)) return 'gone';
    // Favourited before: a count still owed for it (an invocation that ended before counting) is paid now.
    const before = await favouriteOf(accountId, statusId);
    if (before?.uncounted && !(await countFlag(keys.favourite(accountId, statusId), before.id, statusId, 'favouritesCount'))) {
      await dropFavourite(accountId, statusId, before.id);
      return 'gone';
    }
    return 'unchanged';
  }
  if (await countFlag(keys.favourite(accountId, statusId), fav.id, statusId, 'favouritesCount')) return 'changed';
  // The status was deleted meanwhile: its favourite goes too.
  await dropFavourite(accountId, statusId, fav.id);
  return 'gone';
}

/** Removes a favourite's flag and list entries without counting (its status is gone). */
const dropFavourite = (accountId: string, statusId: string, id: string) =>
  transact([
    { Delete: { Key: keys.favourite(accountId, statusId), ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': id } } },
    { Delete: { Key: keys.statusFavourites(statusId, id) } },
    { Delete: { Key: keys.accountFavourites(accountId, id) } },
  ]);

/**
 * Runs a transaction that writes a favourite or reblog flag (`plain`), or the same with the raise of the
 * account's bound when one is due (`bounded`, the raise at `index`). When only the raise's condition failed,
 * another request raised the bound at least as high meanwhile: the flag is written without it. Either way
 * this invocation reads the account's flags in full from now on.
 */
async function flagWithBound(accountId: string, plain: TransactItem[], bounded?: { items: TransactItem[]; index: number }) {
  noteFlagged(accountId);
  if (!bounded) return transact(plain);
  const first = await transact(bounded.items);
  if (!first.ok && first.failed.length === 1 && first.failed[0] === bounded.index) return transact(plain);
  return first;
}

export async function removeFavourite(accountId: string, statusId: string): Promise<Toggle> {
  for (let read = 1; read <= FLAG_READS; read++) {
    const fav = await favouriteOf(accountId, statusId);
    if (!fav) return 'unchanged';
    const result = await transact([
      deleteFlagAsRead(keys.favourite(accountId, statusId), fav, { attr: 'id', value: fav.id }),
      { Delete: { Key: keys.statusFavourites(statusId, fav.id) } },
      { Delete: { Key: keys.accountFavourites(accountId, fav.id) } },
    ]);
    // Gone or counted meanwhile by a concurrent request: read it again.
    if (!result.ok) continue;
    if (fav.uncounted || (await moveCount(statusId, 'favouritesCount', -1))) return 'changed';
    return 'gone';
  }
  throw new Error(`removeFavourite: the favourite of ${statusId} by ${accountId} kept changing`);
}

// ---- bookmarks ----

export const bookmarkOf = (accountId: string, statusId: string) => getItem(keys.bookmark(accountId, statusId), interactionItem, true);

export async function addBookmark(accountId: string, statusId: string): Promise<Toggle> {
  const mark: Interaction = { id: newId(), accountId, statusId, createdAt: nowIso() };
  const result = await transact([
    { Put: { Item: { ...keys.bookmark(accountId, statusId), ...mark }, ConditionExpression: ifAbsent } },
    { Put: { Item: { ...keys.accountBookmarks(accountId, mark.id), id: mark.id, accountId, statusId } } },
    { ConditionCheck: { Key: keys.status(statusId), ConditionExpression: ifPresent } },
    // The account has bookmarks from now on: a rendered status asks for its flag (lib/db/viewer_summary.ts).
    markHides(accountId, ['hasBookmarks']),
  ]);
  noteMarked(accountId, ['hasBookmarks']);
  if (result.ok) return 'changed';
  return result.failed.includes(0) ? 'unchanged' : 'gone';
}

export async function removeBookmark(accountId: string, statusId: string): Promise<Toggle> {
  const mark = await bookmarkOf(accountId, statusId);
  if (!mark) return 'unchanged';
  const result = await transact([
    { Delete: { Key: keys.bookmark(accountId, statusId), ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': mark.id } } },
    { Delete: { Key: keys.accountBookmarks(accountId, mark.id) } },
  ]);
  return result.ok ? 'changed' : 'unchanged';
}

// ---- pins ----

export const MAX_PINS = 5;

export const pinOf = (accountId: string, statusId: string) => getItem(keys.pin(accountId, statusId), interactionItem, true);

/** How many statuses the account has pinned (the list holds at most a handful). */
export async function pinCount(accountId: string): Promise<number> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.accountPinsPartition(accountId) },
      Limit: MAX_PINS + 1,
    },
    listEntryItem,
  );
  return page.items.length;
}

export async function addPin(accountId: string, statusId: string): Promise<Toggle> {
  const pin: Interaction = { id: newId(), accountId, statusId, createdAt: nowIso() };
  const result = await transact([
    { Put: { Item: { ...keys.pin(accountId, statusId), ...pin }, ConditionExpression: ifAbsent } },
    { Put: { Item: { ...keys.accountPins(accountId, statusId), id: pin.id, accountId, statusId } } },
    { ConditionCheck: { Key: keys.status(statusId), ConditionExpression: ifPresent } },
  ]);
  if (result.ok) return 'changed';
  return result.failed.includes(0) ? 'unchanged' : 'gone';
}

export async function removePin(accountId: string, statusId: string): Promise<Toggle> {
  const result = await transact([
    { Delete: { Key: keys.pin(accountId, statusId), ConditionExpression: ifPresent } },
    { Delete: { Key: keys.accountPins(accountId, statusId) } },
  ]);
  return result.ok ? 'changed' : 'unchanged';
}

// ---- conversation mutes ----

export const conversationMuteOf = (accountId: string, conversationId: string) =>
  getItem(keys.conversationMute(accountId, conversationId), conversationMuteItem, true);

/** Mutes a thread; muting it again keeps the first mute. */
export async function muteConversation(accountId: string, conversationId: string): Promise<void> {
  // With the account marked as muting threads, in the same transaction (lib/db/viewer_summary.ts).
  // A failed transaction means the thread was muted already: the first mute stays.
  await transact([
    { Put: { Item: { ...keys.conversationMute(accountId, conversationId), accountId, conversationId, createdAt: nowIso() }, ConditionExpression: 'attribute_not_exists(PK)' } },
    markHides(accountId, ['hasConversationMutes']),
  ]);
  noteMarked(accountId, ['hasConversationMutes']);
}

export async function unmuteConversation(accountId: string, conversationId: string): Promise<void> {
  await deleteItem(keys.conversationMute(accountId, conversationId), conversationMuteItem);
}

// ---- reblogs ----

export const reblogFlagOf = (accountId: string, statusId: string) => getItem(keys.reblogFlag(accountId, statusId), reblogFlagItem, true);

/**
 * Writes a reblog of `original` by `reblog.accountId` (the reblog status is built
 * by the caller): the flag, the reblog status, the reblogger's own home entry,
 * the reblogged_by list entry and the reblogger's statusesCount, all or nothing;
 * then the original's reblogsCount (countFlag, see "Counters" above). A
 * discoverable `reblogger` (as read before) moves its profile-directory entry with it.
 * Writes a local reblog and the reblogger's home entry. `reblogger`: the account as this request read it; its
 * `flaggedUpTo` is raised to the original when that is newer (lib/db/viewer_summary.ts).
 */
export async function addReblog(
  reblog: Status,
  original: Status,
  reblogger?: Listed & Partial<Pick<Account, 'flaggedUpTo'>>,
  /** When the sweeper re-drives the reblog's distribution if its first fan-out page is not done by then (lib/db/fanout_owed.ts). */
  distributionDueAt?: number,
): Promise<Toggle> {
  // Last, after the positions the failures are read from: the home entry and the owed distribution.
  const home: TransactItem[] = [
    { Put: { Item: homeEntryRecord(reblog.accountId, reblog, original.mediaIds.length > 0) } },
    ...(distributionDueAt === undefined ? [] : [putFanoutOwed(reblog.id, distributionDueAt)]),
  ];
  const read = reblogger?.flaggedUpTo === undefined ? undefined : { flaggedUpTo: reblogger.flaggedUpTo };
  const raise = flagBoundRaise(read, original.id);
  const bounded = raise && { items: [...reblogWrites(reblog, original, reblogger, raise), ...home], index: REBLOGGER_UPDATE };
  const result = await flagWithBound(reblog.accountId, [...reblogWrites(reblog, original, reblogger), ...home], bounded);
  return countReblog(result, reblog, original.id, 0);
}

/**
 * After a reblog's transaction: counts it on the original (or a count owed for the account's earlier reblog of it);
 * a reblog of an original deleted meanwhile is undone. `flagAt`: where the flag's Put is in the transaction.
 */
async function countReblog(result: Awaited<ReturnType<typeof transact>>, reblog: Status, originalId: string, flagAt: number): Promise<Toggle> {
  const key = keys.reblogFlag(reblog.accountId, originalId);
  if (result.ok) {
    if (await countFlag(key, reblog.id, originalId, 'reblogsCount')) return 'changed';
    await removeReblog({ id: reblog.id, accountId: reblog.accountId, statusId: originalId, reblogId: reblog.id, createdAt: reblog.createdAt }, false);
    return 'gone';
  }
  if (!result.failed.includes(flagAt)) return result.failed.some((i) => i < flagAt) ? 'unchanged' : 'gone';
  const before = await reblogFlagOf(reblog.accountId, originalId);
  if (before?.uncounted && !(await countFlag(key, before.id, originalId, 'reblogsCount'))) {
    await removeReblog(before, false);
    return 'gone';
  }
  return 'unchanged';
}

/** Where reblogWrites puts the update of the reblogger's account. */
const REBLOGGER_UPDATE = 3;

/**
 * What every reblog writes, its flag first: the flag, the reblog status, the reblogged_by entry and both counters
 * (the reblogger's at REBLOGGER_UPDATE, with the raise of its flag bound when given).
 */
function reblogWrites(reblog: Status, original: Status, reblogger?: Listed, raise?: ReturnType<typeof flagBoundRaise>): TransactItem[] {
  const accountId = reblog.accountId;
  const flag: ReblogFlag = { id: reblog.id, accountId, statusId: original.id, reblogId: reblog.id, createdAt: reblog.createdAt, uncounted: true };
  return [
    { Put: { Item: { ...keys.reblogFlag(accountId, original.id), ...flag }, ConditionExpression: ifAbsent } },
    { Put: { Item: statusRecord(reblog), ConditionExpression: ifAbsent } },
    { Put: { Item: { ...keys.statusReblogs(original.id, reblog.id), id: reblog.id, accountId, statusId: original.id, visibility: reblog.visibility } } },
    {
      Update: {
        Key: keys.account(accountId),
        UpdateExpression: `SET lastStatusAt = :at${raise ? `, ${raise.set}` : ''} ADD statusesCount :one`,
        ConditionExpression: raise ? `${ifPresent} AND ${raise.condition}` : ifPresent,
        ExpressionAttributeValues: { ':at': reblog.createdAt, ':one': 1, ...raise?.values },
      },
    },
    ...directoryActivityItems(reblogger, reblog.createdAt),
  ];
}

/**
 * Writes a reblog received from another server (an Announce; `reblog.uri` is its id): as addReblog, with
 * the pointer from the Announce's id, and no home entry (the reblogger's home is on its own server).
 * `unchanged` when the Announce was stored before (its pointer stays after an Undo, so it is never stored
 * again) or the account has reblogged the original already; all or nothing.
 */
export async function addRemoteReblog(reblog: Status, original: Status, reblogger?: Listed): Promise<Toggle> {
  if (!reblog.uri) throw new Error(`addRemoteReblog: reblog ${reblog.id} has no uri`);
  const result = await transact([
    { Put: { Item: statusUriPointer(reblog.uri, reblog.id), ConditionExpression: ifAbsent } },
    ...reblogWrites(reblog, original, reblogger),
  ]);
  return countReblog(result, reblog, original.id, 1);
}

/**
 * Undoes a reblog: the flag, the reblog status, its list entry and the reblogger's
 * own home entry go; the counters go down (the original's after the transaction, and
 * only if the reblog was counted). `originalExists` false (the original was deleted
 * meanwhile) leaves the original's counter alone.
 */
export async function removeReblog(read: ReblogFlag, originalExists: boolean): Promise<Toggle> {
  let flag: ReblogFlag | undefined = read;
  for (let attempt = 1; flag && flag.reblogId === read.reblogId && attempt <= FLAG_READS; attempt++) {
    const outcome = await removeReblogAsRead(flag, originalExists);
    if (outcome !== 'unchanged') return outcome;
    // Counted meanwhile by the reblog's own request, or taken back: read it again.
    flag = await reblogFlagOf(read.accountId, read.statusId);
  }
  return 'unchanged';
}

async function removeReblogAsRead(flag: ReblogFlag, originalExists: boolean): Promise<Toggle> {
  const { accountId, statusId, reblogId } = flag;
  const items: TransactItem[] = [
    deleteFlagAsRead(keys.reblogFlag(accountId, statusId), flag, { attr: 'reblogId', value: reblogId }),
    { Delete: { Key: keys.status(reblogId) } },
    { Delete: { Key: keys.statusReblogs(statusId, reblogId) } },
    { Delete: { Key: keys.homeEntry(accountId, reblogId) } },
    {
      Update: {
        Key: keys.account(accountId),
        UpdateExpression: 'ADD statusesCount :minus',
        ConditionExpression: ifPresent,
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
  ];
  const result = await transact(items);
  if (!result.ok) return result.failed.includes(0) ? 'unchanged' : 'gone';
  // The original's count, after the transaction (see "Counters" above); the original deleted meanwhile is no failure.
  if (originalExists && !flag.uncounted) await moveCount(statusId, 'reblogsCount', -1);
  return 'changed';
}

/** Every entry of a status's reblogged_by list (all pages, private reblogs included): what deleting the status undoes. */
export const allReblogEntriesOf = (statusId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.statusReblogsPartition(statusId) } }, listEntryItem);

/** Clears entries of a status's reblogged_by list (25 per batch). */
export const removeReblogEntries = (statusId: string, entries: ListEntry[]) => batchWrite([], entries.map((e) => keys.statusReblogs(statusId, e.id)));

// ---- list pages ----

const listTarget = (partition: string): RangeTarget => ({ partitionAttr: 'PK', sortAttr: 'SK', partition });

/** Who favourited a status, newest favourite first (ids are favourite ids). */
export const statusFavouritesPage = (statusId: string, page: Page) =>
  queryIdRange(listTarget(keys.statusFavouritesPartition(statusId)), page, listEntryItem);

/** Who reblogged a status, newest first (ids are reblog ids); private reblogs are not listed, as Mastodon. */
export const statusReblogsPage = (statusId: string, page: Page) =>
  queryIdRange(listTarget(keys.statusReblogsPartition(statusId)), page, listEntryItem, {
    filter: { expression: '#v IN (:public, :unlisted)', names: { '#v': 'visibility' }, values: { ':public': 'public', ':unlisted': 'unlisted' } },
  });

/** What an account favourited, newest favourite first. */
export const accountFavouritesPage = (accountId: string, page: Page) =>
  queryIdRange(listTarget(keys.accountFavouritesPartition(accountId)), page, listEntryItem);

/** What an account bookmarked, newest bookmark first. */
export const accountBookmarksPage = (accountId: string, page: Page) =>
  queryIdRange(listTarget(keys.accountBookmarksPartition(accountId)), page, listEntryItem);
