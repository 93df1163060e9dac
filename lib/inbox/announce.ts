// Announce and Undo(Announce) received from a remote actor. Contract skeleton: ignored until built (issue 13).
import type { ApDocument } from '../federation/vocab';
import type { Outcome, Received } from './received';

export async function announce(received: Received): Promise<Outcome> {
  void received;
  return 'ignored';
}

/** Undo(Announce): `undone` is the embedded Announce, already checked to be the actor's own. */
export async function undoAnnounce(received: Received, undone: ApDocument): Promise<Outcome> {
  void received;
  void undone;
  return 'ignored';
}
