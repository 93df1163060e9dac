// The lists of interactions: who favourited or reblogged a status, and the
// viewer's favourites and bookmarks. Each page is one Query of the list plus
// one batch read of what it names; paging ids are the interactions' own ids.
import { accountsByIds, type Account } from '../db/accounts';
import {
  accountBookmarksPage,
  accountFavouritesPage,
  statusFavouritesPage,
  statusReblogsPage,
  type ListEntry,
} from '../db/interactions';
import { statusesByIds, type Status } from '../db/statuses';
import type { Page } from '../paging';
import { authorShown, goneFor, mayView, viewableStatus, visibleTo } from '../policy';
import { statusById } from '../db/statuses';
import { notFound } from '../errors';

/** A page: what to render, and the first and last interaction ids for the Link header. */
export type ListResult<T> = { items: T[]; newest?: string; oldest?: string };
/** `pagingIds`: each listed status's entry id (what `max_id`/`min_id` name), by the status's id. */
export type StatusListResult = ListResult<Status> & { pagingIds: Map<string, string> };

const bounds = (entries: ListEntry[]) => ({ newest: entries[0]?.id, oldest: entries[entries.length - 1]?.id });

/** The status whose lists are read: the named one if visible, a reblog's original if that is. */
async function listedStatus(id: string, viewer: Account | undefined): Promise<Status> {
  const shown = await viewableStatus(id, viewer);
  if (!shown.reblogOfId) return shown;
  const original = await statusById(shown.reblogOfId);
  if (!original || !(await mayView(viewer, original)) || !(await authorShown(original, viewer?.id))) throw notFound();
  return original;
}

/** The accounts of the entries; a suspended one is listed to nobody but itself. */
async function accountsOf(entries: ListEntry[], viewer: Account | undefined): Promise<ListResult<Account>> {
  const found = await accountsByIds(entries.map((e) => e.accountId));
  return { items: entries.flatMap((e) => found.get(e.accountId) ?? []).filter((a) => !goneFor(a, viewer?.id)), ...bounds(entries) };
}

export async function favouritedBy(id: string, viewer: Account | undefined, page: Page): Promise<ListResult<Account>> {
  const status = await listedStatus(id, viewer);
  return accountsOf(await statusFavouritesPage(status.id, page), viewer);
}

export async function rebloggedBy(id: string, viewer: Account | undefined, page: Page): Promise<ListResult<Account>> {
  const status = await listedStatus(id, viewer);
  return accountsOf(await statusReblogsPage(status.id, page), viewer);
}

/** Statuses named by the entries, in entry order, without deleted ones or ones the viewer can no longer see. */
async function statusesOf(entries: ListEntry[], viewer: Account): Promise<StatusListResult> {
  const found = await statusesByIds(entries.map((e) => e.statusId));
  const statuses = entries.flatMap((e) => found.get(e.statusId) ?? []);
  return { items: await visibleTo(viewer, statuses, 'saved'), ...bounds(entries), pagingIds: new Map(entries.map((e) => [e.statusId, e.id])) };
}

export const favouritesOf = async (viewer: Account, page: Page) => statusesOf(await accountFavouritesPage(viewer.id, page), viewer);
export const bookmarksOf = async (viewer: Account, page: Page) => statusesOf(await accountBookmarksPage(viewer.id, page), viewer);
