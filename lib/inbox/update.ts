// Update: an actor changes something of its own. Part 1 knows Update(Person):
// the actor's profile, refreshed from the document it sends (Mastodon's
// ActivityPub::Activity::Update#update_account). Edits of statuses come later.
import { ACTOR_TYPES, saveActorDocument } from '../federation/actors';
import { objectOf, typeOf } from '../federation/vocab';
import type { Outcome, Received } from './received';

const isActorType = (type: string | undefined): boolean => (ACTOR_TYPES as readonly string[]).includes(type ?? '');

export async function update(received: Received): Promise<Outcome> {
  const object = objectOf(received.activity.object);
  if (!object || !isActorType(typeOf(object))) return 'ignored';
  // An actor updates itself only; its document must keep the key that signed this (it is the one we store).
  if (object.id !== received.actor.uri) return 'ignored';
  const saved = await saveActorDocument(object, { fetchedFrom: received.actor.uri, keyId: received.actor.publicKeyId ?? undefined });
  return saved ? 'applied' : 'ignored';
}
