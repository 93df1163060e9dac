// Delete: an actor removes an object of its own (Mastodon's
// ActivityPub::Activity::Delete). A Note (or its Tombstone, or its bare id) goes
// the way a local status is deleted (lib/statuses/delete.ts: the status, its
// entries, counters, reblogs, and the fan-out's `delete` to homes and streams).
// The actor itself deleted: lib/moderation/remote_removal.ts suspends it (origin remote) at once, then removes its
// account, statuses and follows in bounded rounds (a long history takes several runs of the activity).
import { remoteStatusIdByUri } from '../db/remote';
import { statusById } from '../db/statuses';
import { log } from '../log';
import { removedUnlessGone, removeRemoteActor } from '../moderation/remote_removal';
import { deleteStatus } from '../statuses/delete';
import { idOf, objectOf, typeOf } from '../federation/vocab';
import { quoteApprovalDeleted } from './quote_request';
import { onActorsServer, type Outcome, type Received } from './received';

/** A status of the actor, by its Note id: only the author deletes it (another actor's Delete changes nothing). */
async function deleteNote(received: Received, noteId: string): Promise<Outcome> {
  const statusId = await remoteStatusIdByUri(noteId);
  const status = statusId ? await statusById(statusId) : undefined;
  if (!status) return 'ignored';
  if (status.accountId !== received.actor.id) {
    log.warn('inbox: Delete of a status of another account ignored', { activityId: received.id, statusId: status.id });
    return 'ignored';
  }
  return (await removedUnlessGone(() => deleteStatus(received.actor, status))) ? 'applied' : 'ignored';
}

export async function remove(received: Received): Promise<Outcome> {
  const objectId = idOf(received.activity.object);
  if (!objectId) return 'ignored';
  if (objectId === received.actor.uri) return (await removeRemoteActor(received.actor)) === 'more' ? 'more' : 'applied';
  // Another server's object is not this actor's to delete.
  if (!onActorsServer(received, objectId)) return 'ignored';
  // The quoted author's stamp of one of our quotes (Mastodon's DeleteQuoteAuthorizationSerializer sends its bare id).
  const type = typeOf(objectOf(received.activity.object));
  const revoked = type === 'Note' || type === 'Question' ? undefined : await quoteApprovalDeleted(received, objectId);
  return revoked ?? deleteNote(received, objectId);
}
