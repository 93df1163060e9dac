// Add and Remove received from a remote actor (Mastodon's ActivityPub::Activity::Add
// and Remove): the actor pinned or unpinned one of its own statuses, naming its
// featured collection as the target. Recorded as the account's pins
// (lib/federation/featured.ts), which GET /api/v1/accounts/:id/statuses?pinned=true
// shows. Any other target (featured tags, a collection not the actor's) or a status
// not the actor's own is ignored and writes nothing.
import { receivePin, receiveUnpin } from '../federation/featured';
import { idOf } from '../federation/vocab';
import { addToCollections, removeFromCollections } from './collections';
import type { Outcome, Received } from './received';

export async function add(received: Received): Promise<Outcome> {
  // A collection of accounts (Mastodon 4.6) or one of its items: ./collections.ts.
  const collections = await addToCollections(received);
  if (collections) return collections;
  const pinned = await receivePin(received.actor, idOf(received.activity.target), received.activity.object);
  return pinned ? 'applied' : 'ignored';
}

export async function removeFromCollection(received: Received): Promise<Outcome> {
  const collections = await removeFromCollections(received);
  if (collections) return collections;
  const unpinned = await receiveUnpin(received.actor, idOf(received.activity.target), received.activity.object);
  return unpinned ? 'applied' : 'ignored';
}
