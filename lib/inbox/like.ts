// Like and Undo(Like) received from a remote actor. Contract skeleton: ignored until built (issue 13).
import type { ApDocument } from '../federation/vocab';
import type { Outcome, Received } from './received';

export async function like(received: Received): Promise<Outcome> {
  void received;
  return 'ignored';
}

/** Undo(Like): `undone` is the embedded Like, already checked to be the actor's own. */
export async function undoLike(received: Received, undone: ApDocument): Promise<Outcome> {
  void received;
  void undone;
  return 'ignored';
}
