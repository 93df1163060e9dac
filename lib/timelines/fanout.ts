// The home-feed fan-out, one page of followers at a time: a page reads up to
// FANOUT_PAGE_SIZE followers of the author, asks the delivery rule about each,
// and writes (or removes) their home entries 25 per BatchWrite. The first page
// also serves the accounts outside the follower walk (the author, the mentioned
// accounts, the followers of its hashtags: lib/timelines/fanout_tags.ts), the lists
// and the public streams. The worker runs one page per
// SQS message (lib/timelines/fanout_queue.ts); `fanOut` and `fanOutDelete` run
// every page in-process (tests, benches).
//
// Every write is keyed by (home owner, status), so running a page again writes
// the same items: a retried page never duplicates an entry.
import { accountById } from '../db/accounts';
import type { Follow } from '../db/follows';
import { statusById, type Status } from '../db/statuses';
import { edgesTo, followersAfter, homeEntryKey, homeEntryRecord, writeHomeEntries } from '../db/timelines';
import { log } from '../log';
import { enqueue } from '../queue';
import {
  authorsOf,
  hasSuspendedAuthor,
  entersHome,
  entersHomeByTag,
  hasHomeHere,
  mayHaveReachedTagFollowers,
  mentionedIds,
  reachesFollowers,
  recipientsRefusing,
  remoteParticipants,
  repliedToThirdParty,
} from '../policy';
import { isRemoteAccount } from '../policy/federation';
import { sendStatusCreate } from '../federation/outbox';
import { sendAnnounce } from '../federation/send_interactions';
import { deliverToLists, removeFromLists } from '../lists/delivery';
import { openDeleteStream, openStatusStream, type DeletedStatus } from '../streaming/publish';
import { eachTagFollowerPage, goesToTagFollowers } from './fanout_tags';

/**
 * Followers per page (one SQS message). Measured on dynalite (bench/fanout.ts): a page of 1,000 costs
 * about 0.3 s there (40 BatchWrites, 30 BatchGets of blocks and mutes, 10 of filters), a small fraction of
 * the worker's 60 s timeout; DynamoDB answers these calls faster than the emulator. 1,000 follow edges
 * (about 250 bytes each) also stay well under the 1 MB a Query returns at most.
 */
export const FANOUT_PAGE_SIZE = 1000;

export type FanOutResult = { statusId: string; written: number; ms: number };
/** One page's result: `next` is the follower the following page starts after, when there is one. */
export type FanOutPageResult = FanOutResult & { next?: string };

export type FanOutPageOptions = {
  /** The follower this page starts after; the first page has none. */
  after?: string;
  pageSize?: number;
  /**
   * Called with the next page's cursor once this page's followers are read and before anything is written,
   * so the next page is on its way before this one can fail (the worker enqueues it there).
   */
  onNext?: (after: string) => Promise<void>;
};
/** `pageSize` caps followers per page, for tests of the paging. */
export type FanOutOptions = { pageSize?: number };
/** `deleted`: what the deleted status was (visibility, tags, media), so `delete` reaches exactly its public and hashtag streams. */
export type FanOutDeleteOptions = FanOutOptions & { deleted?: DeletedStatus };
export type FanOutDeletePageOptions = FanOutPageOptions & { deleted?: DeletedStatus };

/** Media decides `only_media`; a reblog carries its original's. */
async function hasMedia(status: Status): Promise<boolean> {
  if (!status.reblogOfId) return status.mediaIds.length > 0;
  const original = await statusById(status.reblogOfId);
  return (original?.mediaIds.length ?? 0) > 0;
}

/** Reads one page of followers (none for a direct status) and hands its cursor on before any write. */
async function followerPage(authorId: string, opts: FanOutPageOptions, walk: boolean): Promise<{ followers: Follow[]; next?: string }> {
  if (!walk) return { followers: [] };
  const page = await followersAfter(authorId, opts.after, opts.pageSize ?? FANOUT_PAGE_SIZE);
  if (page.next && opts.onNext) await opts.onNext(page.next);
  return { followers: page.items, next: page.next };
}

/**
 * Writes one page of a new status's (or reblog's) home entries. The author and the accounts it mentions are
 * served by the first page (with their own edges to the author) and skipped in every follower page, so each
 * gets one entry and one stream event whatever page they fall on.
 */
export async function fanOutPage(statusId: string, opts: FanOutPageOptions = {}): Promise<FanOutPageResult> {
  const started = Date.now();
  const status = await statusById(statusId);
  if (!status) {
    // Deleted before this page ran: its delete message removes whatever exists, and the chain ends here.
    log.info('fanout: status gone', { statusId, after: opts.after });
    return { statusId, written: 0, ms: Date.now() - started };
  }
  // Blocks and mutes (lib/policy): followers blocking, blocked by or muting the author skip it.
  const authors = await authorsOf(status);
  if (await hasSuspendedAuthor(authors)) {
    // A suspended author's status (or a reblog of one) reaches no home, list or stream; the chain ends here.
    log.info('fanout: author suspended', { statusId, after: opts.after });
    return { statusId, written: 0, ms: Date.now() - started };
  }
  const first = opts.after === undefined;
  // Followers see nothing of a direct status unless mentioned, so it skips the follower walk.
  const { followers, next } = await followerPage(status.accountId, opts, reachesFollowers(status));
  const others = [...new Set([status.accountId, ...mentionedIds(status)])];
  const served = new Set(others);

  const media = await hasMedia(status);
  const repliedTo = repliedToThirdParty(status);
  // Streaming (lib/streaming/publish.ts): home streams page by page; public, hashtag and list streams with the first page.
  const stream = await openStatusStream(status, media);
  const sharedPublished = first ? stream.shared() : undefined;
  let written = 0;

  const deliver = async (candidates: { accountId: string; follows: Follow | undefined }[]) => {
    if (candidates.length === 0) return;
    const followsRepliedTo = repliedTo ? await edgesTo(candidates.map((c) => c.accountId), repliedTo) : new Map<string, Follow>();
    // Blocks, mutes and irreversible home filters drop the status at fan-out (home reads drop it too for filters added later).
    const hiding = await recipientsRefusing(status, authors, candidates.map((c) => c.accountId));
    const receiving = candidates
      .filter((c) => !hiding.has(c.accountId))
      .filter((c) =>
        entersHome(status, { accountId: c.accountId, follows: c.follows, followsRepliedTo: followsRepliedTo.has(c.accountId), remote: !hasHomeHere(c.follows) }),
      );
    await writeHomeEntries(receiving.map((c) => homeEntryRecord(c.accountId, status, media)));
    written += receiving.length;
    await stream.home(receiving.map((c) => c.accountId));
    await notifyBellFollowers(status, receiving);
  };

  // Followers of its hashtags whom the home rule leaves out (entersHomeByTag); blocks and mutes of the author
  // or of a mentioned account, domain blocks and irreversible home filters keep it out, as FeedManager#filter_from_tags?.
  const deliverByTag = async (accountIds: string[]) => {
    if (accountIds.length === 0) return;
    const [edges, followsRepliedTo] = await Promise.all([
      edgesTo(accountIds, status.accountId),
      repliedTo ? edgesTo(accountIds, repliedTo) : new Map<string, Follow>(),
    ]);
    const candidates = accountIds.filter((id) =>
      entersHomeByTag(status, { accountId: id, follows: edges.get(id), followsRepliedTo: followsRepliedTo.has(id), remote: !hasHomeHere(edges.get(id)) }),
    );
    if (candidates.length === 0) return;
    const hiding = await recipientsRefusing(status, [...new Set([...authors, ...mentionedIds(status)])], candidates);
    const receiving = candidates.filter((id) => !hiding.has(id));
    await writeHomeEntries(receiving.map((id) => homeEntryRecord(id, status, media)));
    written += receiving.length;
    await stream.home(receiving);
  };

  // Remote followers have no home here (their servers get our Create): no reads or writes for them.
  const local = followers.filter((edge) => hasHomeHere(edge) && !served.has(edge.followerId));
  await deliver(local.map((edge) => ({ accountId: edge.followerId, follows: edge })));
  if (first) {
    // Remote mentioned accounts (and a remote author) have no home here either.
    const remote = remoteParticipants(status);
    const othersHere = others.filter((id) => !remote.has(id));
    const theirEdges = await edgesTo(othersHere, status.accountId);
    await deliver(othersHere.map((id) => ({ accountId: id, follows: theirEdges.get(id) })));
    if (await goesToTagFollowers(status)) await eachTagFollowerPage(status.tags, deliverByTag);
    // Lists: every list containing the author whose owner receives the status (list entries are keyed like home entries).
    const listed = await deliverToLists(status, media);
    if (listed > 0) log.info('fanout: list entries written', { statusId, listed });
    await Promise.all([stream.lists(), sharedPublished]);
    await federate(status);
  }

  const ms = Date.now() - started;
  log.info('fanout: home entries written', { statusId, after: opts.after, written, ms, next });
  return { statusId, written, ms, next };
}

/**
 * The followers who rang the bell (`notify` on their follow) and received the status in their home get a `status`
 * notification, as Mastodon's FeedInsertWorker gives one: not for a reblog, a reply to someone else or an edit (an
 * edit has no fan-out page). The notify worker writes each once however often the page runs, and applies the
 * recipient's notification policy.
 */
async function notifyBellFollowers(status: Status, receiving: { accountId: string; follows: Follow | undefined }[]): Promise<void> {
  if (status.reblogOfId || (status.inReplyToAccountId !== null && status.inReplyToAccountId !== status.accountId)) return;
  const ringing = receiving.filter((c) => c.follows?.notify === true && c.accountId !== status.accountId);
  await Promise.all(ringing.map((c) => enqueue('notify', { type: 'status', accountId: c.accountId, fromAccountId: status.accountId, statusId: status.id })));
}

/**
 * A local status's Create, or a local reblog's Announce, goes to its remote audience with the first page:
 * here, in the worker, so that posting and reblogging cost the request no read of the follower inboxes.
 * A page run again sends the same activity (same id; receivers drop repeats).
 */
async function federate(status: Status): Promise<void> {
  const author = await accountById(status.accountId);
  if (!author || isRemoteAccount(author)) return;
  if (status.reblogOfId === null) return sendStatusCreate(status, author);
  const original = await statusById(status.reblogOfId);
  if (original) await sendAnnounce(status, author, original);
}

/**
 * Removes one page of a deleted status's (or undone reblog's) home entries. The first page also removes the
 * author's, the mentioned accounts' and its hashtags' followers' entries and list entries, and tells the direct,
 * list and public streams.
 */
export async function fanOutDeletePage(statusId: string, accountId: string, mentionIds: string[], opts: FanOutDeletePageOptions = {}): Promise<FanOutPageResult> {
  const started = Date.now();
  const first = opts.after === undefined;
  const { followers, next } = await followerPage(accountId, opts, true);
  const others = [...new Set([accountId, ...mentionIds])];
  const served = new Set(others);
  const stream = await openDeleteStream(statusId);
  const localFollowers = followers.filter((edge) => hasHomeHere(edge)).map((edge) => edge.followerId);
  const owners = [...localFollowers.filter((id) => !served.has(id)), ...(first ? others : [])];
  await writeHomeEntries([], owners.map((id) => homeEntryKey(id, statusId)));
  await stream.home(owners);
  let removed = owners.length;
  if (first) {
    // Its tags' followers got it by the tag (the delete message names the tags it had): the same capped walk.
    const deleted = opts.deleted;
    if (deleted && mayHaveReachedTagFollowers(deleted)) {
      const done = new Set(owners);
      await eachTagFollowerPage(deleted.tags, async (ids) => {
        const more = ids.filter((id) => !done.has(id));
        await writeHomeEntries([], more.map((id) => homeEntryKey(id, statusId)));
        await stream.home(more);
        removed += more.length;
      });
    }
    await removeFromLists(statusId, accountId);
    await stream.finish(accountId, mentionIds, opts.deleted);
  }
  const ms = Date.now() - started;
  log.info('fanout: home entries removed', { statusId, after: opts.after, removed, ms, next });
  return { statusId, written: removed, ms, next };
}

/** Runs pages one after another until the last (in-process: tests and benches; the worker runs one page per message). */
async function everyPage(statusId: string, page: (after: string | undefined) => Promise<FanOutPageResult>): Promise<FanOutResult> {
  const started = Date.now();
  let written = 0;
  let after: string | undefined;
  do {
    const result = await page(after);
    written += result.written;
    after = result.next;
  } while (after !== undefined);
  return { statusId, written, ms: Date.now() - started };
}

/** Writes the home entries of a new status (or reblog) for its author, followers and mentioned accounts: every page. */
export const fanOut = (statusId: string, opts: FanOutOptions = {}): Promise<FanOutResult> =>
  everyPage(statusId, (after) => fanOutPage(statusId, { ...opts, after }));

/** Removes a deleted status's (or reblog's) home entries from its author's, followers' and mentioned accounts' feeds: every page. */
export const fanOutDelete = (statusId: string, accountId: string, mentionIds: string[], opts: FanOutDeleteOptions = {}): Promise<FanOutResult> =>
  everyPage(statusId, (after) => fanOutDeletePage(statusId, accountId, mentionIds, { ...opts, after }));
