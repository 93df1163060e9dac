// Home-feed writes done by following and unfollowing, as Mastodon's MergeWorker /
// UnmergeWorker: entries merged in for the followed account's recent statuses,
// and its entries taken out again. Both are bounded.
import { homeEntryRecord, timelineEntry } from './timelines';
import * as keys from './keys';
import type { Status } from './statuses';
import { batchWrite, query, type Item } from './table';

/** How many home entries an unfollow examines (Mastodon keeps 800 per home feed). */
export const UNMERGE_SCAN = 800;

/** Writes home entries of `ownerId` (25 per batch, retried). */
export async function putHomeEntries(ownerId: string, entries: { status: Status; hasMedia: boolean }[]): Promise<void> {
  await batchWrite(entries.map((e) => homeEntryRecord(ownerId, e.status, e.hasMedia)));
}

/** Deletes the entries authored by `authorId` (statuses and reblogs) among the newest UNMERGE_SCAN of `ownerId`'s home. */
export async function unmergeFromHome(ownerId: string, authorId: string): Promise<number> {
  const doomed: { PK: string; SK: string }[] = [];
  let start: Item | undefined;
  let examined = 0;
  do {
    const limit = Math.min(400, UNMERGE_SCAN - examined);
    const page = await query(
      {
        KeyConditionExpression: 'PK = :p',
        FilterExpression: 'accountId = :a',
        ExpressionAttributeValues: { ':p': keys.homePartition(ownerId), ':a': authorId },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      },
      timelineEntry,
    );
    examined += limit;
    doomed.push(...page.items.map((entry) => keys.homeEntry(ownerId, entry.statusId)));
    start = page.lastKey;
  } while (start && examined < UNMERGE_SCAN);
  await batchWrite([], doomed);
  return doomed.length;
}
