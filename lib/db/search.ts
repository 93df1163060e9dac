// Search index items (no scans): full-text word items for statuses, written at
// posting time, and the hashtag-name prefix index. Public statuses go into one
// partition per word (`SEARCHWORD#word`); the author's non-public statuses into
// a partition per (author, word), searched only by that author. Stale items of
// deleted statuses are harmless: reads resolve ids through the status items.
import { z } from 'zod';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, batchWrite, query, type Item } from './table';
import type { Status } from './statuses';
import { padId } from '../ids';

/** At most this many distinct words of one status are indexed. */
export const MAX_INDEXED_WORDS = 64;
/** Words longer than this are cut (the query side cuts the same way). */
export const MAX_WORD_LENGTH = 40;

/** Lower-cased, NFKC-normalised words (letters, digits and `_`), each once, in order of appearance. */
export function searchWords(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words.map((w) => w.slice(0, MAX_WORD_LENGTH)))];
}

const indexEntry = z.object({ statusId: z.string() });

function wordKey(status: Status, word: string, shared: boolean): Key {
  return shared ? keys.searchWord(word, status.id) : keys.ownSearchWord(status.accountId, word, status.id);
}

/**
 * The index items of a status: its words (text and content warning) and its hashtag names. Reblogs have none.
 * `shared`: words go to everyone's index, else only to the author's own (lib/policy's searchableByAnyone decides).
 */
export function searchIndexRecords(status: Status, shared: boolean): (Key & Item)[] {
  if (status.reblogOfId) return [];
  const words = searchWords(`${status.spoilerText} ${status.text}`).slice(0, MAX_INDEXED_WORDS);
  return [
    ...words.map((word) => ({ ...wordKey(status, word, shared), statusId: status.id })),
    ...status.tags.map((tag) => ({ ...keys.tagName(tag), name: tag })),
  ];
}

export async function writeSearchIndex(status: Status, shared: boolean): Promise<void> {
  const records = searchIndexRecords(status, shared);
  if (records.length > 0) await batchWrite(records);
}

export type WordPage = { ids: string[]; lastKey?: Item };

/** Status ids indexed under `word` (public, or `ownerId`'s own when given), newest first, below `maxId` when given. */
export async function statusIdsByWord(word: string, ownerId: string | undefined, limit: number, maxId?: string, startKey?: Item): Promise<WordPage> {
  const pk = ownerId ? keys.ownSearchWordPartition(ownerId, word) : keys.searchWordPartition(word);
  const page = await query(
    {
      KeyConditionExpression: maxId ? 'PK = :pk AND SK < :max' : 'PK = :pk',
      ExpressionAttributeValues: maxId ? { ':pk': pk, ':max': padId(maxId) } : { ':pk': pk },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: startKey,
    },
    indexEntry,
  );
  return { ids: page.items.map((e) => e.statusId), lastKey: page.lastKey };
}

/** Which of these statuses, found in the shared index or their authors' own (`shared`), are indexed there under every one of `words` (one batch read). */
export async function statusesHavingWords(statuses: Status[], words: string[], shared: boolean): Promise<Set<string>> {
  if (words.length === 0) return new Set(statuses.map((s) => s.id));
  const wanted = statuses.flatMap((s) => words.map((w) => wordKey(s, w, shared)));
  const found = await batchGet(wanted, indexEntry);
  const counts = new Map<string, number>();
  for (const e of found.values()) counts.set(e.statusId, (counts.get(e.statusId) ?? 0) + 1);
  return new Set(statuses.filter((s) => counts.get(s.id) === words.length).map((s) => s.id));
}

const tagNameEntry = z.object({ name: z.string() });

/** Hashtag names starting with `prefix`, alphabetical. */
export async function tagNamesByPrefix(prefix: string, limit: number): Promise<string[]> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.tagNamesPartition(), ':p': prefix },
      Limit: limit,
    },
    tagNameEntry,
  );
  return page.items.map((e) => e.name);
}

// ---- display names (account search) ----

const displayNameEntry = z.object({ accountId: z.string() });

/** Replaces an account's display-name word items: words of `after` written, words only in `before` deleted. */
export async function reindexDisplayName(accountId: string, before: string, after: string): Promise<void> {
  const next = searchWords(after).slice(0, MAX_INDEXED_WORDS);
  const gone = searchWords(before).filter((w) => !next.includes(w));
  await batchWrite(
    next.map((word) => ({ ...keys.displayNameWord(word, accountId), accountId })),
    gone.map((word) => keys.displayNameWord(word, accountId)),
  );
}

/** Accounts with a display-name word starting with `prefix`, by word then account id; `lastKey` continues. */
export async function accountIdsByDisplayNamePrefix(prefix: string, limit: number, startKey?: Item): Promise<{ ids: string[]; lastKey?: Item }> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.displayNamesPartition(), ':p': prefix },
      Limit: limit,
      ExclusiveStartKey: startKey,
    },
    displayNameEntry,
  );
  return { ids: page.items.map((e) => e.accountId), lastKey: page.lastKey };
}
