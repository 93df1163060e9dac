// Undo: an actor takes back an earlier activity of its own. Part 1 knows one:
// Undo(Follow), which removes the follow (or the pending request) of one of our
// accounts (Mastodon's ActivityPub::Activity::Undo#undo_follow).
import { receiveUndoFollow } from '../graph/remote_follows';
import { idOf, objectOf, typeOf } from '../federation/vocab';
import { localAccountAt, type Outcome, type Received } from './received';

export async function undo(received: Received): Promise<Outcome> {
  // The Follow undone must be embedded (as Mastodon, Fedify and Misskey send it): its object names our account.
  const undone = objectOf(received.activity.object);
  if (!undone || typeOf(undone) !== 'Follow') return 'ignored';
  // Only the actor's own Follow may be undone by it.
  if (idOf(undone.actor) !== received.actor.uri) return 'ignored';
  const target = await localAccountAt(idOf(undone.object));
  if (!target) return 'ignored';
  return (await receiveUndoFollow(received.actor, target)) === 'none' ? 'ignored' : 'applied';
}
