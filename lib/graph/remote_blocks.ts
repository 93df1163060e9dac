// Blocks received from other servers (Mastodon's ActivityPub::Activity::Block
// and Undo#undo_block): a remote account blocks one of ours. The follows and
// pending requests between them end both ways, in the block's own transaction
// and quietly (nothing is sent back: the blocker's server ended its side
// itself), and the blocker's statuses leave the local account's home. The
// stored edge (remote → local) is what hides them from each other from then on
// (lib/policy/hidden.ts reads "blocked by" as it reads "blocking"), and what
// shows `blocked_by` in relationships. Undo(Block) removes the edge.
import type { Account } from '../db/accounts';
import { createBlock, deleteBlock, severedBy } from '../db/blocks';
import { graphStates } from '../db/follows';
import { unmergeFromHome } from '../db/home_merge';
import { nowIso } from '../db/table';
import { newId } from '../ids';

/** Attempts before giving up when the follows between the two keep changing under the block. */
const BLOCK_ATTEMPTS = 3;

/**
 * `blocker` (remote) blocks `target` (local). Answers `blocked`, or `already` when the edge was there
 * (a redelivery, or a second Block): then only the home cleanup runs again, which a crash may have cut short.
 */
export async function receiveBlock(blocker: Account, target: Account): Promise<'blocked' | 'already'> {
  const record = { id: newId(), accountId: blocker.id, targetAccountId: target.id, createdAt: nowIso() };
  let outcome: 'blocked' | 'already' = 'already';
  for (let attempt = 1; ; attempt++) {
    const state = (await graphStates(blocker.id, [target.id])).get(target.id);
    if (!state) throw new Error(`graph state of ${blocker.id} and ${target.id} not read`);
    if (state.blocking) break;
    // The blocker's follow of ours was counted under the inbox our posts go to: it comes off that count.
    if (await createBlock(record, severedBy(state))) {
      outcome = 'blocked';
      break;
    }
    if (attempt >= BLOCK_ATTEMPTS) throw new Error('received block: follow state kept changing');
  }
  // The blocker has no home here; the local account's home loses the blocker's statuses.
  await unmergeFromHome(target.id, blocker.id);
  return outcome;
}

/** `blocker` (remote) lifts its block of `target` (local): whether there was one to remove. */
export async function receiveUndoBlock(blocker: Account, target: Account): Promise<boolean> {
  return (await deleteBlock(blocker.id, target.id)) !== undefined;
}
