// Like and Undo(Like) received from a remote actor (Mastodon's
// ActivityPub::Activity::Like and Undo#undo_like): a favourite of one of OUR
// statuses, recorded as a local favourite is (lib/db/interactions.ts: the flag,
// favourited_by, favourites_count) and notified to its author once. A Like of
// anything else (another server's status, a reblog, a status the actor may not
// see, an author who blocks it or is blocked) is ignored and writes nothing.
import { addFavourite, removeFavourite } from '../db/interactions';
import { statusById, type Status } from '../db/statuses';
import { apUrls, parseLocalUrl } from '../federation/urls';
import { idOf, type ApDocument } from '../federation/vocab';
import { blockedBetween, mayView } from '../policy';
import { enqueue } from '../queue';
import { countInteraction } from '../trends';
import { localAccountAt, type Outcome, type Received } from './received';

/**
 * One of our statuses (not a reblog) by its URL, served under its own author's name (`/users/:u/statuses/:id`,
 * its `/activity`, `/@:u/:id`); undefined for anything else.
 */
export async function localStatusAt(uri: string | undefined): Promise<Status | undefined> {
  const target = uri ? parseLocalUrl(uri) : undefined;
  if (target?.kind !== 'status') return undefined;
  const [status, author] = await Promise.all([statusById(target.statusId), localAccountAt(apUrls.actor(target.username))]);
  if (!status || !author || status.accountId !== author.id || status.uri !== null || status.reblogOfId !== null) return undefined;
  return status;
}

/** May the actor interact with the status: see it, with no block either way between it and the author? */
export async function mayInteract(received: Received, status: Status): Promise<boolean> {
  return (await mayView(received.actor, status)) && !(await blockedBetween(status.accountId, received.actor.id));
}

export async function like(received: Received): Promise<Outcome> {
  const status = await localStatusAt(idOf(received.activity.object));
  if (!status || !(await mayInteract(received, status))) return 'ignored';
  const outcome = await addFavourite(received.actor, status.id);
  if (outcome === 'gone') return 'ignored';
  // Counted once per (status, account), so a redelivery counts nothing more.
  await countInteraction(status, 'favourite', received.actor.id);
  // Already there too: a redelivery after a worker died between the two finishes the notification (written once).
  await enqueue('notify', { type: 'favourite', accountId: status.accountId, fromAccountId: received.actor.id, statusId: status.id });
  return 'applied';
}

/** Undo(Like): `undone` is the embedded Like, already checked to be the actor's own; only its own favourite goes. */
export async function undoLike(received: Received, undone: ApDocument): Promise<Outcome> {
  const status = await localStatusAt(idOf(undone.object));
  if (!status) return 'ignored';
  return (await removeFavourite(received.actor.id, status.id)) === 'changed' ? 'applied' : 'ignored';
}
