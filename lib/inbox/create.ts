// Create: a remote actor posts (Mastodon's ActivityPub::Activity::Create). A Note
// (Article, Page and Question as plain statuses) is stored once and fanned out
// by lib/federation/notes.ts; anything else created is not ours to keep yet.
import { FetchFailed, fetchObject } from '../federation/fetch';
import { storeRemoteNote } from '../federation/notes';
import { idOf, objectOf, type ApDocument } from '../federation/vocab';
import { onActorsServer, type Outcome, type Received } from './received';
import { receiveVote } from './vote';
import { quoteStampOf, verifyQuoteStamp } from './quote_request';

/** The created object: embedded, or fetched by its id (which must be on the actor's server before we ask it). */
async function createdObject(received: Received): Promise<ApDocument | undefined> {
  const object = received.activity.object;
  const embedded = objectOf(object);
  if (embedded) {
    if (!onActorsServer(received, idOf(embedded))) return undefined;
    // Some servers address only the activity: its audience stands for the object's (as Mastodon reads it).
    return { ...embedded, to: embedded.to ?? received.activity.to, cc: embedded.cc ?? received.activity.cc };
  }
  const id = idOf(object);
  if (!id || !onActorsServer(received, id)) return undefined;
  try {
    return await fetchObject(id);
  } catch (err) {
    // Gone already, or never there: nothing to store. Other failures are retried with the message.
    if (err instanceof FetchFailed && (err.status === 404 || err.status === 410)) return undefined;
    throw err;
  }
}

export async function create(received: Received): Promise<Outcome> {
  const note = await createdObject(received);
  if (!note) return 'ignored';
  // A Note with a `name` answering one of our polls is a vote (./vote.ts), never a status.
  const vote = await receiveVote(received, note);
  if (vote) return vote;
  // storeRemoteNote refuses what is not a note of this actor (attributedTo, origin, size).
  const status = await storeRemoteNote(note, received.actor);
  if (!status) return 'ignored';
  // A quote of a third server's status waits for its stamp to be checked (one fetch; a redelivery checks again while pending).
  await verifyQuoteStamp(status, received.actor, quoteStampOf(note));
  return 'applied';
}
