// What moderation sends over federation: a local account's Block of a remote
// account and its Undo (Mastodon's BlockService / UnblockService), and a report
// forwarded to the reported account's server as a Flag (ReportService's
// forward). The follows a block severs are answered before the Block by
// lib/graph/blocks.ts (Undo of our Follow, Reject of theirs), as Mastodon does.
//
// The Flag is sent by the instance actor, not the reporter: the other server
// learns what was reported, never who reported it (Mastodon does the same).
// Like every send, these run after the action committed and never throw.
import type { Account } from '../db/accounts';
import { deliveryInbox, personalInbox } from '../policy/federation';
import { actorUri, AS_CONTEXT, type Activity } from './activities';
import { deliverTo } from './deliver';
import { crossesServers, deliver, quietly } from './outbox';
import { apUrls } from './urls';

type ActorOf = Pick<Account, 'username' | 'domain' | 'uri'>;

/** The id of a local block's Block: made from the block's own id, so that its Undo names the same activity. */
export const blockActivityId = (blocker: Pick<Account, 'username'>, blockId: string): string => apUrls.activityId(blocker.username, 'blocks', blockId);

/** A local account blocks a remote one. */
export function blockActivity(blocker: ActorOf, target: ActorOf, blockId: string): Activity {
  return { '@context': AS_CONTEXT, id: blockActivityId(blocker, blockId), type: 'Block', actor: actorUri(blocker), object: actorUri(target) };
}

/** A local account lifts its block of a remote one: the Block is embedded, so its receiver need not fetch it. */
export function undoBlockActivity(blocker: ActorOf, target: ActorOf, blockId: string): Activity {
  const { '@context': _context, ...blocked } = blockActivity(blocker, target, blockId);
  return { '@context': AS_CONTEXT, id: `${blockActivityId(blocker, blockId)}/undo`, type: 'Undo', actor: blocked.actor, object: blocked };
}

/** The Flag's id: on the instance actor's server, as its actor; a report is forwarded once, so its id makes the Flag's. */
export const flagActivityId = (reportId: string): string => `${apUrls.instanceActor()}#flags/${reportId}`;

/** A report forwarded to the reported account's server: the account and the statuses named, and the comment. */
export function flagActivity(reportId: string, target: ActorOf, statusUris: string[], comment: string): Activity {
  return {
    '@context': AS_CONTEXT,
    id: flagActivityId(reportId),
    type: 'Flag',
    actor: apUrls.instanceActor(),
    content: comment,
    object: [actorUri(target), ...statusUris],
  };
}

/** `blocker` (local) blocks `target` (remote): its server hears of it (after the Undo/Reject of the follows severed). */
export async function sendBlock(blocker: Account, target: Account, blockId: string): Promise<void> {
  if (!crossesServers(blocker, target)) return;
  await quietly('Block', { accountId: blocker.id, targetId: target.id }, () =>
    deliver(blockActivity(blocker, target, blockId), [personalInbox(target)], blocker),
  );
}

/** `blocker` (local) unblocks `target` (remote): the Undo of the Block it sent. */
export async function sendUndoBlock(blocker: Account, target: Account, blockId: string): Promise<void> {
  if (!crossesServers(blocker, target)) return;
  await quietly('Undo(Block)', { accountId: blocker.id, targetId: target.id }, () =>
    deliver(undoBlockActivity(blocker, target, blockId), [personalInbox(target)], blocker),
  );
}

/**
 * A report about a remote account, forwarded to its server (its shared inbox, else its own), signed by the
 * instance actor. `statusUris`: the ActivityPub ids of the reported statuses (theirs: stored with their uri).
 */
export async function sendFlag(report: { id: string; comment: string }, target: Account, statusUris: string[]): Promise<void> {
  if (target.domain === null) return;
  await quietly('Flag', { reportId: report.id, targetId: target.id }, async () => {
    const inbox = deliveryInbox(target);
    if (!inbox) return;
    await deliverTo(flagActivity(report.id, target, statusUris, report.comment), [inbox], 'instance');
  });
}
