// Favourite and unfavourite (Mastodon's FavouritesController and FavouriteService):
// idempotent, one favourite and one count per account and status, and a
// notification to the author when a favourite is new.
import type { Account } from '../db/accounts';
import { addFavourite, favouriteOf, removeFavourite } from '../db/interactions';
import type { Status } from '../db/statuses';
import { notFound } from '../errors';
import { isId } from '../ids';
import { sendLike, sendUndoLike } from '../federation/send_interactions';
import { enqueue } from '../queue';
import { countDaily } from '../db/daily_stats';
import { countInteraction } from '../trends';
import { currentStatus, interactionTarget } from './target';

/** Favourites the status (a reblog's original); answers the status to render. */
export async function favourite(viewer: Account, id: string): Promise<Status> {
  const { shown, target } = await interactionTarget(id, viewer);
  const outcome = await addFavourite(viewer, target.id);
  if (outcome === 'gone') throw notFound();
  if (outcome === 'changed') await Promise.all([countInteraction(target, 'favourite', viewer.id), countDaily('interactions')]);
  if (outcome === 'changed' && target.accountId !== viewer.id) {
    await enqueue('notify', { type: 'favourite', accountId: target.accountId, fromAccountId: viewer.id, statusId: target.id });
  }
  // A remote status's author hears of it (the favourite's id names the Like).
  const made = outcome === 'changed' && target.uri !== null ? await favouriteOf(viewer.id, target.id) : undefined;
  if (made) await sendLike(viewer, target, made);
  return currentStatus(shown.id);
}

/**
 * Removes the viewer's favourite. As Mastodon, a favourited status is found by
 * the favourite itself (so it can be undone even if it can no longer be seen);
 * otherwise the status must be visible, and nothing changes.
 */
export async function unfavourite(viewer: Account, id: string): Promise<Status> {
  if (!isId(id)) throw notFound();
  const fav = await favouriteOf(viewer.id, id);
  if (!fav) {
    const { shown, target } = await interactionTarget(id, viewer);
    // The id of a reblog: undo the viewer's favourite of its original.
    if (target.id !== shown.id) await unfavourite(viewer, target.id);
    return currentStatus(shown.id);
  }
  const outcome = await removeFavourite(viewer.id, id);
  if (outcome === 'gone') throw notFound();
  const status = await currentStatus(id);
  if (outcome === 'changed') await sendUndoLike(viewer, status, fav);
  return status;
}
