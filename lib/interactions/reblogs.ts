// Reblog and unreblog (Mastodon's ReblogsController, ReblogService, StatusPolicy#reblog?).
// A reblog is a status of its own (`reblogOfId`): it enters the reblogger's home
// at once and their followers' homes through the fan-out worker.
import type { Account } from '../db/accounts';
import { addReblog, reblogFlagOf, removeReblog } from '../db/interactions';
import { statusById, statusItem, type Status } from '../db/statuses';
import { forbidden, notFound } from '../errors';
import { isId, newId } from '../ids';
import { sendUndoAnnounce } from '../federation/send_interactions';
import { enqueue } from '../queue';
import { mayReblog, reblogKeepsVisibility, viewableStatus } from '../policy';
import { countDaily } from '../db/daily_stats';
import { countInteraction } from '../trends';
import { log } from '../log';
import { distributionDueAt, enqueueDistribution, redriveIfOwed } from '../timelines/fanout_owed';
import { currentStatus, interactionTarget } from './target';

export type ReblogVisibility = 'public' | 'unlisted' | 'private';

/** The reblog's visibility: a private original keeps its own; else the request's, else the account's default. */
function reblogVisibility(original: Status, viewer: Account, requested: ReblogVisibility | undefined): Status['visibility'] {
  if (reblogKeepsVisibility(original)) return original.visibility;
  if (requested) return requested;
  return viewer.privacy === 'direct' ? 'public' : viewer.privacy;
}

/** Reblogs the status (a reblog's original); answers the reblog, new or the one made before. */
export async function reblog(viewer: Account, id: string, requested?: ReblogVisibility): Promise<Status> {
  const { target: original } = await interactionTarget(id, viewer);
  if (!mayReblog(viewer, original)) throw forbidden();

  const existing = await reblogFlagOf(viewer.id, original.id);
  if (existing) {
    // Reblogging again is a retry: a distribution of the reblog still owed is enqueued again.
    await redriveIfOwed(existing.reblogId).catch((err: unknown) => log.error('re-drive of a repeated reblog failed', { reblogId: existing.reblogId, err }));
    return currentStatus(existing.reblogId);
  }

  const now = new Date();
  const status = statusItem.parse({
    id: newId(now),
    accountId: viewer.id,
    createdAt: now.toISOString(),
    reblogOfId: original.id,
    visibility: reblogVisibility(original, viewer, requested),
    conversationId: original.conversationId,
    sensitive: original.sensitive,
    language: original.language,
  });
  const outcome = await addReblog(status, original, viewer, distributionDueAt());
  if (outcome === 'gone') throw notFound();
  if (outcome === 'unchanged') {
    // A concurrent request made the reblog first: answer that one.
    const made = await reblogFlagOf(viewer.id, original.id);
    if (!made) throw notFound();
    return currentStatus(made.reblogId);
  }
  // The reblog stands if the queue refuses it: its owed record has the sweeper re-drive it (lib/timelines/fanout_owed.ts).
  await enqueueDistribution(status.id).catch((err: unknown) => log.error('enqueue after reblogging failed; the sweeper re-drives it', { reblogId: status.id, err }));
  await Promise.all([countInteraction(original, 'reblog', viewer.id), countDaily('interactions')]);
  if (original.accountId !== viewer.id) {
    // As posting's side effects: the reblog stands if the queue refuses this (the notification is then lost).
    await enqueue('notify', { type: 'reblog', accountId: original.accountId, fromAccountId: viewer.id, statusId: original.id }).catch((err: unknown) =>
      log.error('reblog notification enqueue failed', { reblogId: status.id, err }),
    );
  }
  // Its Announce goes to the reblogger's remote followers and the original's author from the fan-out (lib/timelines/fanout.ts).
  return status;
}

/**
 * Undoes the viewer's reblog of the status `id`; answers the original. As
 * Mastodon, without a reblog the status must be visible and nothing changes.
 */
export async function unreblog(viewer: Account, id: string): Promise<Status> {
  if (!isId(id)) throw notFound();
  const flag = await reblogFlagOf(viewer.id, id);
  if (!flag) {
    const shown = await viewableStatus(id, viewer);
    if (!shown.reblogOfId) return shown;
    // The id of a reblog: undo the viewer's reblog of its original.
    return unreblog(viewer, shown.reblogOfId);
  }
  // The reblog is read before it goes: its Undo(Announce) names it.
  const [original, reblogged] = await Promise.all([statusById(id), statusById(flag.reblogId)]);
  const outcome = await removeReblog(flag, original !== undefined);
  if (outcome === 'changed') {
    await enqueue('fanout', { type: 'delete', statusId: flag.reblogId, accountId: viewer.id, mentionIds: [] });
    if (original && reblogged) await sendUndoAnnounce(reblogged, viewer, original);
  }
  if (!original || outcome === 'gone') throw notFound();
  return currentStatus(id);
}
