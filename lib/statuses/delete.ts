// Deleting a status (Mastodon's RemoveStatusService): one transaction removes the
// status, its public/tag entries, the author's own home entry, its reply index
// item, the poll, and moves the counters; attachments are released so
// delete-and-redraft can attach them again. Followers' home entries go through
// the fan-out worker. Reblogs of the status are removed too, as Mastodon does.
import type { Account } from '../db/accounts';
import { allReblogEntriesOf, reblogFlagOf, removeReblog, removeReblogEntries } from '../db/interactions';
import { pollById } from '../db/polls';
import { isRemoteStatus, statusById, type Status } from '../db/statuses';
import { removeStatus } from '../db/status_writes';
import { notFound } from '../errors';
import { isId } from '../ids';
import { log } from '../log';
import { deletedVisibility, entersPublicTimelines } from '../policy';
import { sendStatusDelete } from '../federation/outbox';
import { sendUndoAnnounce } from '../federation/send_interactions';
import { enqueue } from '../queue';
import { quotedStatusDeleted } from './quotes';

/** The caller's own status; 404 when it is missing or someone else's (the spec's delete rule). */
export async function ownStatus(owner: Account, id: string): Promise<Status> {
  if (!isId(id)) throw notFound();
  const status = await statusById(id);
  if (!status || status.accountId !== owner.id) throw notFound();
  return status;
}

/** Deletes the caller's own status (see `ownStatus`); 404 when it went meanwhile. */
export async function deleteStatus(owner: Account, status: Status): Promise<void> {
  if (status.accountId !== owner.id) throw notFound();
  if (status.reblogOfId) {
    await deleteOwnReblog(owner, status, status.reblogOfId);
    return;
  }
  const poll = status.pollId ? await pollById(status.pollId) : undefined;
  const parent = status.inReplyToId ? await statusById(status.inReplyToId) : undefined;
  // Gone meanwhile, or changed under the transaction: either way there is no such status of the caller's to delete.
  const removed = await removeStatus(status, { poll, parentExists: parent !== undefined, listed: entersPublicTimelines(status) });
  if ('failed' in removed) throw notFound();

  await removeReblogsOf(status);
  await quotedStatusDeleted(status);
  try {
    await enqueue('fanout', { type: 'delete', statusId: status.id, accountId: status.accountId, mentionIds: status.mentions.map((m) => m.id), deleted: deletedDescription(status) });
  } catch (err) {
    log.error('enqueue after deleting failed', { statusId: status.id, err });
  }
  // Where its Create went, its Delete goes (never throws: the status is gone either way).
  await sendStatusDelete(status, owner);
}

/**
 * What the fan-out's `delete` event needs of a deleted status: the streams it
 * reached. Public and hashtag streams only heard of it when it entered the public
 * timelines (no reblogs, no replies to others); otherwise it is described as unlisted.
 */
function deletedDescription(status: Status) {
  // A status from another server reached `public:remote` rather than `public:local`.
  return { visibility: deletedVisibility(status), tags: status.tags, hasMedia: status.mediaIds.length > 0, ...(isRemoteStatus(status) ? { remote: true } : {}) };
}

/** An undone reblog never reached public, hashtag or direct streams. */
const REBLOG_DELETED = { visibility: 'unlisted' as const, tags: [], hasMedia: false };

/** Every reblog of a deleted status goes with it (their home entries through the fan-out). */
export async function removeReblogsOf(status: Status): Promise<void> {
  if (status.reblogOfId) return;
  const entries = await allReblogEntriesOf(status.id);
  for (const entry of entries) {
    const flag = await reblogFlagOf(entry.accountId, status.id);
    if (!flag) continue;
    if ((await removeReblog(flag, false)) !== 'changed') continue;
    try {
      await enqueue('fanout', { type: 'delete', statusId: flag.reblogId, accountId: flag.accountId, mentionIds: [], deleted: REBLOG_DELETED });
    } catch (err) {
      log.error('enqueue reblog removal failed', { statusId: flag.reblogId, err });
    }
  }
  // The reblogged_by list of a deleted status is unreachable; clear it anyway.
  if (entries.length > 0) await removeReblogEntries(status.id, entries);
}

/** DELETE on one's own reblog undoes it, as unreblogging does (flag, list entry, counters). */
async function deleteOwnReblog(owner: Account, reblog: Status, originalId: string): Promise<Status> {
  const flag = await reblogFlagOf(owner.id, originalId);
  if (!flag || flag.reblogId !== reblog.id) throw notFound();
  const original = await statusById(originalId);
  if ((await removeReblog(flag, original !== undefined)) !== 'changed') throw notFound();
  try {
    await enqueue('fanout', { type: 'delete', statusId: reblog.id, accountId: owner.id, mentionIds: [], deleted: REBLOG_DELETED });
  } catch (err) {
    log.error('enqueue after deleting failed', { statusId: reblog.id, err });
  }
  if (original) await sendUndoAnnounce(reblog, owner, original);
  return reblog;
}
