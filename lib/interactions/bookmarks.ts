// Bookmark and unbookmark (Mastodon's BookmarksController): private to the
// account, idempotent, on a reblog's original.
import type { Account } from '../db/accounts';
import { addBookmark, bookmarkOf, removeBookmark } from '../db/interactions';
import type { Status } from '../db/statuses';
import { notFound } from '../errors';
import { isId } from '../ids';
import { currentStatus, interactionTarget } from './target';

export async function bookmark(viewer: Account, id: string): Promise<Status> {
  const { shown, target } = await interactionTarget(id, viewer);
  if ((await addBookmark(viewer.id, target.id)) === 'gone') throw notFound();
  return currentStatus(shown.id);
}

/** As unfavourite: found by the bookmark itself, else the status must be visible. */
export async function unbookmark(viewer: Account, id: string): Promise<Status> {
  if (!isId(id)) throw notFound();
  if (await bookmarkOf(viewer.id, id)) {
    await removeBookmark(viewer.id, id);
    return currentStatus(id);
  }
  const { shown, target } = await interactionTarget(id, viewer);
  if (target.id !== shown.id) await removeBookmark(viewer.id, target.id);
  return currentStatus(shown.id);
}
