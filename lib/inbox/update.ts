// Update: an actor changes something of its own (Mastodon's
// ActivityPub::Activity::Update): its profile (Person and the other actor types,
// refreshed from the document it sends), a status it wrote (./update_note.ts: an
// edit, kept in the status's history) or a poll's counts (./update_question.ts).
import { ACTOR_TYPES, saveActorDocument } from '../federation/actors';
import { objectOf, typeOf, type ApDocument } from '../federation/vocab';
import type { Outcome, Received } from './received';
import { updateNote } from './update_note';
import { updateQuestion } from './update_question';

const isActorType = (type: string | undefined): boolean => (ACTOR_TYPES as readonly string[]).includes(type ?? '');

/** Update(Person): an actor updates itself only; its document must keep the key that signed this (it is the one we store). */
async function updateActor(received: Received, object: ApDocument): Promise<Outcome> {
  if (object.id !== received.actor.uri) return 'ignored';
  const saved = await saveActorDocument(object, { fetchedFrom: received.actor.uri, keyId: received.actor.publicKeyId ?? undefined });
  return saved ? 'applied' : 'ignored';
}

export async function update(received: Received): Promise<Outcome> {
  const object = objectOf(received.activity.object);
  if (!object) return 'ignored';
  const type = typeOf(object);
  if (isActorType(type)) return updateActor(received, object);
  if (type === 'Question') return updateQuestion(received, object);
  if (type === 'Note' || type === 'Article' || type === 'Page') return updateNote(received, object);
  return 'ignored';
}
