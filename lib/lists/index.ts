// Lists as the user manages them: owned lists (another user's list id is 404),
// members who must be followed, and the list timeline. Memberships and entries
// are written here and by the fan-out (lib/lists/delivery.ts).
import { z } from 'zod';
import { isVisible, visibleAccountById, visibleAccountsByIds } from '../policy/accounts';
import { accountsByIds, type Account } from '../db/accounts';
import { followEdges } from '../db/follows';
import {
  addListMembers,
  changeList,
  destroyList,
  listMembersPage,
  listTimelineEntries,
  listOf,
  listsByIds,
  listsOf,
  membersAmong,
  ownerMembershipsOf,
  putList,
  removeAccountEntries,
  removeListMembers,
  removeMemberships,
  repliesPolicies,
  type List,
  type ListMember,
  type RepliesPolicy,
} from '../db/lists';
import { statusesByIds, type Status } from '../db/statuses';
import { collectPage, type TimelineEntry } from '../db/timelines';
import { notFound, unprocessable } from '../errors';
import { isId, newId } from '../ids';
import type { Page } from '../paging';
import { oneOrMany, text } from '../schema';
import { RAW_CAPS } from '../text/limits';
import { visibleTo } from '../policy';
import type { TimelinePage } from '../db/timelines';
import { backfillList } from './delivery';

/** Mastodon's List::TITLE_LENGTH_LIMIT. */
export const TITLE_MAX = RAW_CAPS.listTitle;
/** Accounts per add request: each needs two transaction items (membership, follow check), plus the list check. */
export const ACCOUNTS_PER_REQUEST = 40;

export const listTitle = text(TITLE_MAX).trim().min(1, "can't be blank");
export const repliesPolicy = z.enum(repliesPolicies, { errorMap: () => ({ message: 'must be one of followed, list, none' }) });
export const accountIds = oneOrMany(z.array(z.string({ invalid_type_error: 'must be an id' }).regex(/^\d{1,20}$/, 'must be an id'), { invalid_type_error: 'must be a list of ids' }))
  .refine((ids) => ids.length > 0, "can't be blank")
  .refine((ids) => ids.length <= ACCOUNTS_PER_REQUEST, `is too long (maximum is ${ACCOUNTS_PER_REQUEST} accounts)`)
  .transform((ids) => [...new Set(ids)]);

/** The viewer's own list, or 404 as Mastodon answers for anyone else's. */
export async function ownList(owner: Account, id: string): Promise<List> {
  if (!isId(id)) throw notFound();
  const list = await listOf(owner.id, id);
  if (!list) throw notFound();
  return list;
}

export async function createList(owner: Account, input: { title: string; repliesPolicy?: RepliesPolicy }): Promise<List> {
  const list: List = { id: newId(), ownerId: owner.id, title: input.title, repliesPolicy: input.repliesPolicy ?? 'list', createdAt: new Date().toISOString() };
  await putList(list);
  return list;
}

export async function updateList(owner: Account, id: string, changes: { title?: string; repliesPolicy?: RepliesPolicy }): Promise<List> {
  await ownList(owner, id);
  const updated = await changeList(owner.id, id, changes);
  if (!updated) throw notFound();
  return updated;
}

export async function deleteList(owner: Account, id: string): Promise<void> {
  await destroyList(await ownList(owner, id));
}

export const listsOfOwner = (owner: Account) => listsOf(owner.id);

/**
 * Adds followed accounts to a list in one transaction (all or nothing): each
 * membership only if new, each follow edge checked at write time. Then fills the
 * list with their latest statuses the owner may see.
 */
export async function addAccounts(owner: Account, id: string, ids: string[]): Promise<void> {
  const list = await ownList(owner, id);
  const accounts = await accountsByIds(ids);
  if (ids.some((a) => { const found = accounts.get(a); return !found || !isVisible(found); })) throw notFound();
  const edges = await followEdges(owner.id, ids);
  if (ids.some((a) => !edges.has(a))) throw unprocessable('Validation failed: Follow must exist');
  const taken = await membersAmong(list.id, ids);
  if (taken.size > 0) throw unprocessable('Validation failed: Account has already been taken');
  const now = new Date().toISOString();
  const members: ListMember[] = ids.map((accountId) => ({ listId: list.id, ownerId: owner.id, accountId, createdAt: now }));
  const result = await addListMembers(owner.id, list.id, members);
  if ('failed' in result) {
    if (result.failed === 'list-gone') throw notFound();
    if (result.failed === 'already-member') throw unprocessable('Validation failed: Account has already been taken');
    throw unprocessable('Validation failed: Follow must exist');
  }
  for (const m of members) {
    const follow = edges.get(m.accountId);
    if (follow) await backfillList(list, owner, m.accountId, follow);
  }
}

/** Removes accounts from a list, and their statuses from its timeline; ids not in the list are ignored. */
export async function removeAccounts(owner: Account, id: string, ids: string[]): Promise<void> {
  const list = await ownList(owner, id);
  const members = [...(await membersAmong(list.id, ids))];
  await removeListMembers(list.id, members);
  for (const accountId of members) await removeAccountEntries(list.id, accountId);
}

/**
 * Takes an account out of every list of `ownerId` (and its statuses out of
 * those timelines): Mastodon drops list memberships with the follow, so
 * unfollow and block call this.
 */
export async function leaveOwnerLists(ownerId: string, accountId: string): Promise<void> {
  const memberships = await ownerMembershipsOf(accountId, ownerId);
  await removeMemberships(memberships);
  for (const m of memberships) await removeAccountEntries(m.listId, accountId);
}

export type MembersPage = { accounts: Account[]; newest?: string; oldest?: string };

/** A page of a list's accounts (newest account first); `limit` 0 answers all of them, without paging. */
export async function listAccounts(owner: Account, id: string, page: Page | { limit: 0 }): Promise<MembersPage> {
  const list = await ownList(owner, id);
  const members = await listMembersPage(list.id, page);
  const ids = members.map((m) => m.accountId);
  const accounts = await visibleAccountsByIds(ids);
  return page.limit === 0 ? { accounts } : { accounts, newest: ids[0], oldest: ids.at(-1) };
}

/** The viewer's lists that contain the account (404 for an unknown account). */
export async function listsContaining(owner: Account, accountId: string): Promise<List[]> {
  const account = await visibleAccountById(accountId);
  const memberships = await ownerMembershipsOf(account.id, owner.id);
  return listsByIds(owner.id, memberships.map((m) => m.listId));
}

/** A page of a list timeline: one Query of its entries, one batch read of the statuses, the visibility check. */
export async function listTimeline(owner: Account, id: string, page: Page): Promise<TimelinePage> {
  const list = await ownList(owner, id);
  const source = listTimelineEntries(list.id, page);
  const read = await collectPage(source, page.limit, (batch: TimelineEntry[]) => batch);
  const entries = page.min_id !== undefined ? read.reverse() : read;
  const byId = await statusesByIds(entries.map((e) => e.statusId));
  // Blocks, mutes and irreversible home filters apply on read too: entries written before them stay hidden.
  const statuses = await visibleTo(owner, entries.flatMap((e): Status[] => { const s = byId.get(e.statusId); return s ? [s] : []; }), 'list');
  return { statuses, newest: entries[0]?.statusId, oldest: entries.at(-1)?.statusId };
}
