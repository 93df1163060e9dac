// Update: an actor changes something of its own (Mastodon's
// ActivityPub::Activity::Update): its profile (Person and the other actor types,
// refreshed from the document it sends, and its `suspended` flag: suspended there, suspended here), a status it wrote (./update_note.ts: an
// edit, kept in the status's history) or a poll (./update_question.ts: its counts
// and close; an edit of the poll status's text goes through ./update_note.ts too); a Note's quote stamp added since
// (./quote_request.ts).
import type { Account } from '../db/accounts';
import { remoteStatusIdByUri } from '../db/remote';
import { statusById } from '../db/statuses';
import { ACTOR_TYPES, saveActorDocument } from '../federation/actors';
import { FetchFailed, fetchObject } from '../federation/fetch';
import { idOf, objectOf, typeOf, type ApDocument } from '../federation/vocab';
import { suspendAccount, unsuspendAccount } from '../moderation/suspension';
import { updateCollection } from './collections';
import { onActorsServer, type Outcome, type Received } from './received';
import { updateNote } from './update_note';
import { updateQuestion } from './update_question';
import { quoteStampOf, verifyQuoteStamp } from './quote_request';

const isActorType = (type: string | undefined): boolean => (ACTOR_TYPES as readonly string[]).includes(type ?? '');

/** Update(Person): an actor updates itself only; its document must keep the key that signed this (it is the one we store). */
async function updateActor(received: Received, object: ApDocument): Promise<Outcome> {
  if (object.id !== received.actor.uri) return 'ignored';
  const saved = await saveActorDocument(object, { fetchedFrom: received.actor.uri, keyId: received.actor.publicKeyId ?? undefined });
  if (!saved) return 'ignored';
  await followOriginSuspension(saved, object);
  return 'applied';
}

/** Its server suspended it (Mastodon's `suspended: true` in its document), or lifted a suspension of its own; ours stays ours. */
async function followOriginSuspension(saved: Account, doc: ApDocument): Promise<Account> {
  if (doc.suspended === true && !saved.suspendedAt) return suspendAccount(saved, 'remote');
  if (doc.suspended !== true && saved.suspendedAt && saved.suspensionOrigin === 'remote') return unsuspendAccount(saved);
  return saved;
}

/**
 * An activity from an actor its own server had suspended: deliveries are not ordered, and this one may have
 * overtaken the Update that lifted the suspension (an unsuspended account's follows are sent again at once). The
 * actor's document is read again, once per such activity (each is processed once), and its word followed; answers
 * the account as it now stands. A suspension of ours, or a server that cannot be asked now, leaves it as it was.
 */
export async function recheckOriginSuspension(actor: Account): Promise<Account> {
  if (!actor.suspendedAt || actor.suspensionOrigin !== 'remote' || !actor.uri) return actor;
  let doc: ApDocument;
  try {
    doc = await fetchObject(actor.uri);
  } catch (err) {
    if (err instanceof FetchFailed) return actor;
    throw err;
  }
  const saved = await saveActorDocument(doc, { fetchedFrom: actor.uri, keyId: actor.publicKeyId ?? undefined });
  if (!saved || saved.id !== actor.id) return actor;
  return followOriginSuspension(saved, doc);
}

/**
 * The stamp an updated Note now names for its pending quote (the quoted author approved it since: Mastodon sends
 * the Note again, often without a new `updated`, so this is read whether or not the Update is an edit).
 */
async function stampAdded(received: Received, object: ApDocument): Promise<Outcome> {
  const stamp = quoteStampOf(object);
  const uri = idOf(object);
  if (!stamp || !uri || !onActorsServer(received, uri)) return 'ignored';
  const id = await remoteStatusIdByUri(uri);
  const status = id ? await statusById(id) : undefined;
  return status && status.uri === uri ? verifyQuoteStamp(status, received.actor, stamp) : 'ignored';
}

export async function update(received: Received): Promise<Outcome> {
  const object = objectOf(received.activity.object);
  if (!object) return 'ignored';
  const type = typeOf(object);
  if (isActorType(type)) return updateActor(received, object);
  if (type === 'Question') {
    // A poll's counts (or its close), and perhaps an edit of its text: both are read, each changes what it owns.
    const counts = await updateQuestion(received, object);
    const edit = await updateNote(received, object);
    const stamped = await stampAdded(received, object);
    return counts === 'applied' || edit === 'applied' || stamped === 'applied' ? 'applied' : 'ignored';
  }
  if (type === 'Note' || type === 'Article' || type === 'Page') {
    const edit = await updateNote(received, object);
    const stamped = await stampAdded(received, object);
    return edit === 'applied' || stamped === 'applied' ? 'applied' : 'ignored';
  }
  if (type === 'FeaturedCollection') return updateCollection(received, object);
  return 'ignored';
}
