// The home-feed fan-out: reads a status's audience (every follower of its
// author, to the last page, and the accounts it mentions), asks the delivery
// rule about each, and writes or removes home entries 25 per BatchWrite.
import type { Follow } from '../db/follows';
import { statusById, type Status } from '../db/statuses';
import { edgesTo, followersPage, homeEntryKey, homeEntryRecord, writeHomeEntries } from '../db/timelines';
import type { Item } from '../db/table';
import { authorsOf, recipientsHiding } from '../graph/hidden';
import { recipientsFilteringOut } from '../filters';
import { log } from '../log';
import { entersHome, mentionedIds, repliedToThirdParty } from './delivery';
import { deliverToLists, removeFromLists } from '../lists/delivery';
import { openDeleteStream, openStatusStream, type DeletedStatus } from '../streaming/publish';

export type FanOutResult = { statusId: string; written: number; ms: number };
/** `pageSize` caps followers per Query (DynamoDB's 1 MB page otherwise), for tests of the paging. */
export type FanOutOptions = { pageSize?: number };
/** `deleted`: what the deleted status was (visibility, tags, media), so `delete` reaches exactly its public and hashtag streams. */
export type FanOutDeleteOptions = FanOutOptions & { deleted?: DeletedStatus };

/** Media decides `only_media`; a reblog carries its original's. */
async function hasMedia(status: Status): Promise<boolean> {
  if (!status.reblogOfId) return status.mediaIds.length > 0;
  const original = await statusById(status.reblogOfId);
  return (original?.mediaIds.length ?? 0) > 0;
}

/** Writes the home entries of a new status (or reblog) for its author, followers and mentioned accounts. */
export async function fanOut(statusId: string, opts: FanOutOptions = {}): Promise<FanOutResult> {
  const started = Date.now();
  const status = await statusById(statusId);
  if (!status) {
    // Deleted before the worker ran: its delete message removes whatever exists.
    log.info('fanout: status gone', { statusId });
    return { statusId, written: 0, ms: Date.now() - started };
  }
  const media = await hasMedia(status);
  const repliedTo = repliedToThirdParty(status);
  const mentions = mentionedIds(status);
  const reached = new Set<string>();
  let written = 0;
  // Blocks and mutes (lib/graph/hidden.ts): followers blocking, blocked by or muting the author skip it.
  const authors = await authorsOf(status);
  // Streaming (lib/streaming/publish.ts): public and hashtag streams alongside, home streams page by page.
  const stream = await openStatusStream(status, media);
  const sharedPublished = stream.shared();

  const deliver = async (candidates: { accountId: string; follows: Follow | undefined }[]) => {
    const followsRepliedTo = repliedTo ? await edgesTo(candidates.map((c) => c.accountId), repliedTo) : new Map<string, Follow>();
    const hiding = await recipientsHiding(authors, candidates.map((c) => c.accountId));
    // Irreversible home filters drop the status at fan-out (lib/filters; home reads drop it too for filters added later).
    for (const id of await recipientsFilteringOut(status, candidates.map((c) => c.accountId), 'home')) hiding.add(id);
    const receiving = candidates
      .filter((c) => !hiding.has(c.accountId))
      .filter((c) => entersHome(status, { accountId: c.accountId, follows: c.follows, followsRepliedTo: followsRepliedTo.has(c.accountId) }));
    const records = receiving.map((c) => homeEntryRecord(c.accountId, status, media));
    await writeHomeEntries(records);
    written += records.length;
    await stream.home(receiving.map((c) => c.accountId));
  };

  // Followers see nothing of a direct status unless mentioned, so it skips the follower walk.
  if (status.visibility !== 'direct') {
    let start: Item | undefined;
    do {
      const page = await followersPage(status.accountId, start, opts.pageSize);
      page.items.forEach((edge) => reached.add(edge.followerId));
      await deliver(page.items.map((edge) => ({ accountId: edge.followerId, follows: edge })));
      start = page.lastKey;
    } while (start);
  }

  const others = [status.accountId, ...mentions].filter((id) => !reached.has(id));
  const theirEdges = await edgesTo(others, status.accountId);
  await deliver(others.map((id) => ({ accountId: id, follows: theirEdges.get(id) })));
  // Lists after home: every list containing the author whose owner receives the status.
  const listed = await deliverToLists(status, media);
  if (listed > 0) log.info('fanout: list entries written', { statusId, listed });
  await Promise.all([stream.lists(), sharedPublished]);

  const ms = Date.now() - started;
  log.info('fanout: home entries written', { statusId, written, ms });
  return { statusId, written, ms };
}

/** Removes a deleted status's (or reblog's) home entries from its author's, followers' and mentioned accounts' feeds. */
export async function fanOutDelete(statusId: string, accountId: string, mentionIds: string[], opts: FanOutDeleteOptions = {}): Promise<FanOutResult> {
  const started = Date.now();
  const stream = await openDeleteStream(statusId);
  let removed = 0;
  let start: Item | undefined;
  const reached = new Set<string>();
  do {
    const page = await followersPage(accountId, start, opts.pageSize);
    const keysOf = page.items.map((edge) => {
      reached.add(edge.followerId);
      return homeEntryKey(edge.followerId, statusId);
    });
    await writeHomeEntries([], keysOf);
    removed += keysOf.length;
    await stream.home(page.items.map((edge) => edge.followerId));
    start = page.lastKey;
  } while (start);
  const others = [...new Set([accountId, ...mentionIds])].filter((id) => !reached.has(id));
  await writeHomeEntries([], others.map((id) => homeEntryKey(id, statusId)));
  removed += others.length;
  await stream.home(others);
  await removeFromLists(statusId, accountId);
  await stream.finish(accountId, mentionIds, opts.deleted);
  const ms = Date.now() - started;
  log.info('fanout: home entries removed', { statusId, removed, ms });
  return { statusId, written: removed, ms };
}
