// Block and Undo(Block) received from a remote actor. Contract skeleton: ignored until built (issue 13).
import type { ApDocument } from '../federation/vocab';
import type { Outcome, Received } from './received';

export async function block(received: Received): Promise<Outcome> {
  void received;
  return 'ignored';
}

/** Undo(Block): `undone` is the embedded Block, already checked to be the actor's own. */
export async function undoBlock(received: Received, undone: ApDocument): Promise<Outcome> {
  void received;
  void undone;
  return 'ignored';
}
