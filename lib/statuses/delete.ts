// Deleting a status (Mastodon's RemoveStatusService): one transaction removes the
// status, its public/tag entries, the author's own home entry, its reply index
// item, the poll, and moves the counters; attachments are released so
// delete-and-redraft can attach them again. Followers' home entries go through
// the fan-out worker. Reblogs of the status are removed too, as Mastodon does.
import type { Account } from '../db/accounts';
import { reblogFlagOf, removeReblog } from '../db/interactions';
import { keys } from '../db/keys';
import { releaseMediaItems } from '../db/media';
import { deletePollItems, pollById } from '../db/polls';
import { countOnInstance } from '../db/stats';
import { countAuthorStatus, countReply, deleteOwnStatus, deleteReply, statusById, type Status } from '../db/statuses';
import { batchWrite, queryAll, transact, type TransactItem } from '../db/table';
import { listEntryItem } from '../db/interactions';
import { publicEntryRecords } from '../db/timelines';
import { notFound } from '../errors';
import { isId } from '../ids';
import { log } from '../log';
import { enqueue } from '../queue';

const MAX_TRANSACTION_ITEMS = 100;
const keyOf = (item: { PK: string; SK: string }) => ({ PK: item.PK, SK: item.SK });

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
  const hasMedia = status.mediaIds.length > 0;

  const build = (withParent: boolean): { items: TransactItem[]; overflow: { PK: string; SK: string }[] } => {
    const items: TransactItem[] = [
      deleteOwnStatus(status),
      { Delete: { Key: keys.homeEntry(status.accountId, status.id) } },
      ...countAuthorStatus(status.accountId, -1),
      ...releaseMediaItems(status.id, status.mediaIds),
      ...(poll ? deletePollItems(poll) : []),
    ];
    if (status.inReplyToId) {
      items.push(deleteReply(status.inReplyToId, status.id));
      if (withParent) items.push(countReply(status.inReplyToId, -1));
    }
    const entries = publicEntryRecords(status, hasMedia).map(keyOf);
    const room = MAX_TRANSACTION_ITEMS - items.length;
    items.push(...entries.slice(0, room).map((Key): TransactItem => ({ Delete: { Key } })));
    return { items, overflow: entries.slice(room) };
  };

  let plan = build(parent !== undefined);
  let result = await transact(plan.items);
  if (!result.ok && !result.failed.includes(0) && parent) {
    // The parent was deleted meanwhile: its counter no longer matters.
    plan = build(false);
    result = await transact(plan.items);
  }
  if (!result.ok) throw notFound();
  await countOnInstance('statusCount', -1);
  if (plan.overflow.length > 0) await batchWrite([], plan.overflow);

  await removeReblogsOf(status);
  try {
    await enqueue('fanout', { type: 'delete', statusId: status.id, accountId: status.accountId, mentionIds: status.mentions.map((m) => m.id), deleted: deletedDescription(status) });
  } catch (err) {
    log.error('enqueue after deleting failed', { statusId: status.id, err });
  }
}

/**
 * What the fan-out's `delete` event needs of a deleted status: the streams it
 * reached. Public and hashtag streams only heard of it when it entered the public
 * timelines (no reblogs, no replies to others); otherwise it is described as unlisted.
 */
function deletedDescription(status: Status) {
  const hasMedia = status.mediaIds.length > 0;
  const wasPublic = publicEntryRecords(status, hasMedia).length > 0;
  return { visibility: status.visibility === 'public' && !wasPublic ? ('unlisted' as const) : status.visibility, tags: status.tags, hasMedia };
}

/** An undone reblog never reached public, hashtag or direct streams. */
const REBLOG_DELETED = { visibility: 'unlisted' as const, tags: [], hasMedia: false };

/** Every reblog of a deleted status goes with it (their home entries through the fan-out). */
async function removeReblogsOf(status: Status): Promise<void> {
  if (status.reblogOfId) return;
  const entries = await queryAll(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.statusReblogsPartition(status.id) } },
    listEntryItem,
  );
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
  if (entries.length > 0) await batchWrite([], entries.map((e) => keys.statusReblogs(status.id, e.id)));
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
  return reblog;
}
