// Block and Undo(Block) received from a remote actor (Mastodon's
// ActivityPub::Activity::Block, Undo#undo_block): the actor blocks, or stops
// blocking, one of our accounts. What that does is lib/graph/remote_blocks.ts's.
// Only a Block of one of our (visible) accounts does anything: a Block naming
// someone else's account, or nothing, is ignored and writes nothing.
import { idOf, type ApDocument } from '../federation/vocab';
import { receiveBlock, receiveUndoBlock } from '../graph/remote_blocks';
import { localAccountAt, type Outcome, type Received } from './received';

export async function block(received: Received): Promise<Outcome> {
  const target = await localAccountAt(idOf(received.activity.object));
  if (!target) return 'ignored';
  await receiveBlock(received.actor, target);
  return 'applied';
}

/** Undo(Block): `undone` is the embedded Block, already checked to be the actor's own. */
export async function undoBlock(received: Received, undone: ApDocument): Promise<Outcome> {
  const target = await localAccountAt(idOf(undone.object));
  if (!target) return 'ignored';
  return (await receiveUndoBlock(received.actor, target)) ? 'applied' : 'ignored';
}
