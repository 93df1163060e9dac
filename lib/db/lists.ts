// Lists: the list item under its owner, memberships stored once (PK the list)
// and inverted by GSI1 (lists containing an account, grouped by owner), and the
// list timeline entries the fan-out writes.
import { z } from 'zod';
import type { IdRange, Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import type { Key } from './keys';
import * as gsi1 from './gsi1';
import type { Status } from './statuses';
import { batchGet, batchWrite, deleteItem, getItem, keyString, putItem, query, queryAll, transact, updateItem, type Item, type TransactItem } from './table';
import { timelineEntries, timelineEntry } from './timelines';

export const repliesPolicies = ['followed', 'list', 'none'] as const;
export type RepliesPolicy = (typeof repliesPolicies)[number];

export const listItem = z.object({
  id: z.string(),
  ownerId: z.string(),
  title: z.string(),
  repliesPolicy: z.enum(repliesPolicies).default('list'),
  createdAt: z.string(),
});
export type List = z.infer<typeof listItem>;

export const listRecord = (list: List) => ({ ...keys.list(list.ownerId, list.id), ...listItem.parse(list) });

export const listMemberItem = z.object({ listId: z.string(), ownerId: z.string(), accountId: z.string(), createdAt: z.string() });
export type ListMember = z.infer<typeof listMemberItem>;

export const listMemberRecord = (m: ListMember) => ({
  ...keys.listMember(m.listId, m.accountId),
  ...gsi1.listMembership(m.accountId, m.ownerId, m.listId),
  ...listMemberItem.parse(m),
});

/** The owner's list, or undefined (another user's list id is simply not under this owner). */
export const listOf = (ownerId: string, listId: string) => getItem(keys.list(ownerId, listId), listItem, true);

export const putList = (list: List) => putItem(listRecord(list), { ifAbsent: true });

/** Changes title and/or replies policy of an existing list; undefined if it is gone. */
export async function changeList(ownerId: string, listId: string, changes: { title?: string; repliesPolicy?: RepliesPolicy }): Promise<List | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(changes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v], i) => {
      names[`#f${i}`] = k;
      values[`:f${i}`] = v;
      return `#f${i} = :f${i}`;
    });
  if (sets.length === 0) return listOf(ownerId, listId);
  return updateItem(
    { Key: keys.list(ownerId, listId), UpdateExpression: `SET ${sets.join(', ')}`, ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeNames: names, ExpressionAttributeValues: values },
    listItem,
  );
}

/** All lists of an owner, oldest first (Mastodon orders them by title on the client). */
export const listsOf = (ownerId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.listsPartition(ownerId) } }, listItem);

/** Lists by id of one owner, in one batch read; unknown ids drop out. */
export async function listsByIds(ownerId: string, ids: string[]): Promise<List[]> {
  const found = await batchGet(ids.map((id) => keys.list(ownerId, id)), listItem);
  return ids.flatMap((id) => found.get(keyString(keys.list(ownerId, id))) ?? []);
}

/** A page of a list's members, newest account first; `limit` 0 reads them all. */
export async function listMembersPage(listId: string, page: Page | { limit: 0 }): Promise<ListMember[]> {
  if (page.limit === 0) {
    return queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.listMembersPartition(listId) }, ScanIndexForward: false }, listMemberItem);
  }
  return queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.listMembersPartition(listId) }, page, listMemberItem);
}

/** Which of `accountIds` are already in the list: one batch read. */
export async function membersAmong(listId: string, accountIds: string[]): Promise<Set<string>> {
  const found = await batchGet(accountIds.map((id) => keys.listMember(listId, id)), listMemberItem);
  return new Set([...found.values()].map((m) => m.accountId));
}

/** Every list containing `accountId` (all owners): one Query of GSI1, to its last page. */
export const membershipsOf = (accountId: string) =>
  queryAll(
    { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': gsi1.listMembershipsPartition(accountId) } },
    listMemberItem,
  );

/** The lists of `ownerId` containing `accountId`. */
export const ownerMembershipsOf = (accountId: string, ownerId: string) =>
  queryAll(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :owner)',
      ExpressionAttributeValues: { ':pk': gsi1.listMembershipsPartition(accountId), ':owner': gsi1.listMembershipOwnerPrefix(ownerId) },
    },
    listMemberItem,
  );

/** Why adding members failed: the list went, one is a member already, or a follow edge is gone. */
export type AddMembersFailure = 'list-gone' | 'already-member' | 'not-followed';

/**
 * Adds members to a list in one transaction (all or nothing): the list must
 * still exist, each membership must be new, and the owner must still follow
 * each member at write time.
 */
export async function addListMembers(ownerId: string, listId: string, members: ListMember[]): Promise<{ ok: true } | { failed: AddMembersFailure }> {
  const items: TransactItem[] = [
    { ConditionCheck: { Key: keys.list(ownerId, listId), ConditionExpression: 'attribute_exists(PK)' } },
    ...members.flatMap((m): TransactItem[] => [
      { Put: { Item: listMemberRecord(m), ConditionExpression: 'attribute_not_exists(PK)' } },
      { ConditionCheck: { Key: keys.follow(ownerId, m.accountId), ConditionExpression: 'attribute_exists(PK)' } },
    ]),
  ];
  const result = await transact(items);
  if (result.ok) return { ok: true };
  if (result.failed.includes(0)) return { failed: 'list-gone' };
  // Odd indexes are memberships (already there), even ones follow edges (gone meanwhile).
  if (result.failed.some((i) => i % 2 === 1)) return { failed: 'already-member' };
  return { failed: 'not-followed' };
}

/** Deletes the memberships of `accountIds` in one list (25 per batch); absent ones are no-ops. */
export const removeListMembers = (listId: string, accountIds: string[]) => batchWrite([], accountIds.map((a) => keys.listMember(listId, a)));

/** Deletes the given memberships of one account (as read by `ownerMembershipsOf`). */
export const removeMemberships = (memberships: ListMember[]) => batchWrite([], memberships.map((m) => keys.listMember(m.listId, m.accountId)));

/** The entries of a list timeline in an id range (see `timelineEntries`). */
export const listTimelineEntries = (listId: string, range: IdRange) => timelineEntries([keys.listPartition(listId)], range);

/** The lists the memberships name (a list deleted meanwhile is absent), by list id: one batch read. */
export async function listsOfMemberships(memberships: ListMember[]): Promise<Map<string, List>> {
  const found = await batchGet(memberships.map((m) => keys.list(m.ownerId, m.listId)), listItem);
  return new Map([...found.values()].map((list) => [list.id, list]));
}

/** Which of the memberships' lists also contain `accountId`, by list id: one batch read. */
export async function listsAlsoContaining(memberships: ListMember[], accountId: string): Promise<Set<string>> {
  const found = await batchGet(memberships.map((m) => keys.listMember(m.listId, accountId)), listMemberItem);
  return new Set([...found.values()].map((m) => m.listId));
}

const anyItem = z.record(z.string(), z.unknown());

/**
 * For streaming a status to list listeners: which (owner, list) pairs both have
 * the status in the list timeline and own that list (a list stream may name any
 * id). One batch read of both kinds of item.
 */
export async function listsDelivered(listened: { ownerId: string; listId: string }[], statusId: string): Promise<(ownerId: string, listId: string) => boolean> {
  const read = await batchGet(listened.flatMap((l) => [keys.listEntry(l.listId, statusId), keys.list(l.ownerId, l.listId)]), anyItem);
  return (ownerId, listId) => read.has(keyString(keys.listEntry(listId, statusId))) && read.has(keyString(keys.list(ownerId, listId)));
}

/** Removes a status's entries from the memberships' list timelines (25 per batch). */
export const removeListEntries = (memberships: ListMember[], statusId: string) => batchWrite([], memberships.map((m) => keys.listEntry(m.listId, statusId)));

export const listEntryRecord = (listId: string, status: Status, hasMedia: boolean) => ({
  ...keys.listEntry(listId, status.id),
  ...timelineEntry.parse({ statusId: status.id, accountId: status.accountId, reblogOfId: status.reblogOfId, hasMedia, local: true }),
});

export const writeListEntries = (puts: ReturnType<typeof listEntryRecord>[], deletes: Key[] = []) => batchWrite(puts, deletes);

const keyOnly = z.object({ PK: z.string(), SK: z.string() });

/**
 * Deletes every item of a partition, one page (at most `pageSize` keys) at a
 * time, so that memory and each batch stay bounded however large it is.
 */
async function deletePartition(pk: string, filter?: { expression: string; values: Item }, pageSize = 100): Promise<number> {
  let removed = 0;
  let start: Item | undefined;
  do {
    const page = await query(
      {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(filter?.values ?? {}) },
        ...(filter ? { FilterExpression: filter.expression } : {}),
        ProjectionExpression: 'PK, SK',
        Limit: pageSize,
        ExclusiveStartKey: start,
      },
      keyOnly,
    );
    await batchWrite([], page.items);
    removed += page.items.length;
    start = page.lastKey;
  } while (start);
  return removed;
}

/** Removes the entries an account wrote (its statuses and reblogs) from a list timeline. */
export const removeAccountEntries = (listId: string, accountId: string) =>
  deletePartition(keys.listPartition(listId), { expression: 'accountId = :a', values: { ':a': accountId } });

/**
 * Deletes a list: its memberships first (so the fan-out stops finding it), then
 * the list item, then its timeline entries, each in bounded batches.
 */
export async function destroyList(list: List): Promise<void> {
  await deletePartition(keys.listMembersPartition(list.id));
  await deleteItem(keys.list(list.ownerId, list.id), listItem);
  await deletePartition(keys.listPartition(list.id));
}
