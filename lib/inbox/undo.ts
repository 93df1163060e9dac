// Undo: an actor takes back an earlier activity of its own (Mastodon's
// ActivityPub::Activity::Undo). The undone activity is read here and handed to
// the handler of its type: Follow (./follow.ts), Like (./like.ts), Announce
// (./announce.ts), Block (./block.ts). Each checks that the undone activity is
// the actor's own before it removes anything.
import { receiveUndoFollow } from '../graph/remote_follows';
import { idOf, objectOf, typeOf, type ApDocument } from '../federation/vocab';
import { undoAnnounce } from './announce';
import { undoBlock } from './block';
import { undoLike } from './like';
import { localAccountAt, type Outcome, type Received } from './received';

/** Undo(Follow): removes the follow (or the pending request) of one of our accounts. */
async function undoFollow(received: Received, undone: ApDocument): Promise<Outcome> {
  const target = await localAccountAt(idOf(undone.object));
  if (!target) return 'ignored';
  return (await receiveUndoFollow(received.actor, target)) === 'none' ? 'ignored' : 'applied';
}

/** The handler of each undoable type; the undone activity is embedded and the actor's own. */
const UNDOERS: Record<string, (received: Received, undone: ApDocument) => Promise<Outcome>> = {
  Follow: undoFollow,
  Like: undoLike,
  Announce: undoAnnounce,
  Block: undoBlock,
};

export async function undo(received: Received): Promise<Outcome> {
  // The undone activity must be embedded (as Mastodon, Fedify and Misskey send it).
  const undone = objectOf(received.activity.object);
  const handler = undone ? UNDOERS[typeOf(undone) ?? ''] : undefined;
  if (!undone || !handler) return 'ignored';
  // Only the actor's own activity may be undone by it.
  if (idOf(undone.actor) !== received.actor.uri) return 'ignored';
  return handler(received, undone);
}
