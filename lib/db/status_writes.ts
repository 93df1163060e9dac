// Posting and deleting a status as stored (lib/statuses/create.ts and delete.ts
// hold the rules): each is one transaction for everything that must hold
// together, and a cancelled transaction is answered as a named failure, read
// from the positions of its cancellation reasons here, where the items are laid out.
import { z } from 'zod';
import { directoryActivityItems, directoryActivityWrites, type Listed } from './directory';
import * as keys from './keys';
import type { Key } from './keys';
import { knowItem } from './known_items';
import { log } from '../log';
import { attachMediaItems, deleteRemoteMediaItems, putRemoteMedia, releaseMediaItems, type Media } from './media';
import { deletePollItems, pollExpiryRecord, pollRecord, type Poll } from './polls';
import { claimScheduledItems, transferMediaItems, type Scheduled } from './scheduled';
import { countOnInstance } from './stats';
import { putFanoutOwed } from './fanout_owed';
import { countAuthorStatus, countReply, deleteOwnStatus, deleteReply, isRemoteStatus, putIdempotency, putReply, putStatus, type Status } from './statuses';
import { batchWrite, transact, updateItem, type Item, type TransactItem } from './table';
import { homeEntryRecord, publicEntryRecords } from './timelines';
import { statusUriPointer } from './remote';
import { deleteQuoteAsRead, moveQuotesCount, putQuote, type Quote } from './quotes';

/** DynamoDB's transaction limit; public and tag entries beyond it are written right after. */
const MAX_TRANSACTION_ITEMS = 100;
const keyOf = (item: { PK: string; SK: string }) => ({ PK: item.PK, SK: item.SK });
const anyItem = z.record(z.string(), z.unknown());

export type NewStatusWrite = {
  status: Status;
  poll?: Poll;
  /** Whether the status enters the public and hashtag timelines (lib/policy decides). */
  listed: boolean;
  /** SHA-256 of the Idempotency-Key, claimed in the same transaction. */
  idempotencyKeyHash?: string;
  /**
   * A scheduled status being published as this one: its attachments move from
   * it, and its claim (conditional delete) joins the transaction, so it is
   * posted at most once.
   */
  scheduled?: Scheduled;
  /** The author as read before posting: a discoverable author's profile-directory entry moves once the status is written. */
  author?: Listed;
  /** The status's search index items (lib/db/search.ts), written once the status is. */
  searchIndex?: (Key & Item)[];
  /**
   * When the sweeper re-drives the status's distribution if its first fan-out page is not done by then (epoch ms):
   * the owed record (lib/db/fanout_owed.ts) is written in the transaction, so no status stands without it.
   */
  distributionDueAt?: number;
  /** The quote of the status it quotes (lib/db/quotes.ts), written with it; an accepted one counts on the quoted status after. */
  quote?: Quote;
};

/**
 * Why a new status was not written: the scheduled status was claimed by another
 * run, the idempotency key was taken meanwhile, an attachment is not the
 * author's unattached (or reserved) one, or the replied-to status is gone.
 */
export type NewStatusFailure = 'claim-lost' | 'idempotency-key-taken' | 'media-not-yours' | 'reply-target-gone';

/**
 * Writes a new status in one transaction: the status, the author's home entry, the
 * attachments, the reply index and the parent's counter, the poll and its expiry
 * entry, the idempotency key, the record that its distribution is owed, the
 * scheduled claim, and the public and tag entries.
 * Once it has committed, side by side: the author's counters (one single-item
 * update, with the author's profile-directory entry), the instance's
 * (lib/db/stats.ts), and one batch of what needs no condition (public and tag
 * entries beyond the transaction limit, the search index).
 *
 * The author's counters stay out of the transaction on purpose: every post of one
 * author would hold the same account item, and DynamoDB cancels a transaction that
 * meets another on an item, so concurrent posts of one account (a client's retries,
 * a scheduled status published while the author posts) refused each other and were
 * retried with backoff (bench/post-tail.ts: 4 in 10 under 10 connections, up to 7
 * retries each). Single-item updates of one item never conflict with each other.
 */
export async function writeNewStatus(w: NewStatusWrite): Promise<{ ok: true } | { failed: NewStatusFailure }> {
  const { status, poll, scheduled } = w;
  const hasMedia = status.mediaIds.length > 0;
  const items: TransactItem[] = [putStatus(status), { Put: { Item: homeEntryRecord(status.accountId, status, hasMedia) } }];
  const mediaAt = items.length;
  items.push(...(scheduled ? transferMediaItems(scheduled.id, status.id, status.accountId, status.mediaIds) : attachMediaItems(status.id, status.accountId, status.mediaIds)));
  let parentAt = -1;
  if (status.inReplyToId) {
    items.push(putReply({ ...status, inReplyToId: status.inReplyToId }));
    parentAt = items.length;
    items.push(countReply(status.inReplyToId, 1));
  }
  if (poll) items.push({ Put: { Item: pollRecord(poll) } }, { Put: { Item: pollExpiryRecord(poll) } });
  let keyAt = -1;
  if (w.idempotencyKeyHash) {
    keyAt = items.length;
    items.push(putIdempotency(status.accountId, w.idempotencyKeyHash, status.id));
  }
  if (w.distributionDueAt !== undefined) items.push(putFanoutOwed(status.id, w.distributionDueAt));
  if (w.quote) items.push(putQuote(w.quote));
  const claim = scheduled ? claimScheduledItems(scheduled) : [];
  const claimAt = items.length;
  items.push(...claim);
  const entries = publicEntryRecords(status, hasMedia, w.listed);
  const room = MAX_TRANSACTION_ITEMS - items.length;
  items.push(...entries.slice(0, room).map((Item): TransactItem => ({ Put: { Item } })));

  const result = await transact(items);
  if (!result.ok) {
    const failedIn = (at: number, count: number) => result.failed.some((i) => i >= at && i < at + count);
    if (failedIn(claimAt, claim.length)) return { failed: 'claim-lost' };
    if (result.failed.includes(keyAt)) return { failed: 'idempotency-key-taken' };
    if (failedIn(mediaAt, status.mediaIds.length)) return { failed: 'media-not-yours' };
    if (result.failed.includes(parentAt)) return { failed: 'reply-target-gone' };
    throw new Error(`posting status ${status.id}: transaction condition failed at ${result.failed.join(',')}`);
  }
  knowNewStatus(status, poll);
  const directory = directoryActivityWrites(w.author, status.createdAt);
  const puts = [...entries.slice(room), ...directory.puts, ...(w.searchIndex ?? [])];
  // The status stands whatever happens to these (each is retried on its own first): the
  // client is answered with it, and a retry with its Idempotency-Key finds it.
  const settle = (what: string, write: Promise<unknown>) =>
    write.catch((err: unknown) => log.error(`${what} after posting failed`, { statusId: status.id, err }));
  await Promise.all([
    settle('author counters', countAuthorPosted(status.accountId, status.createdAt)),
    settle('instance counter', countOnInstance('statusCount', 1)),
    w.quote?.state === 'accepted' ? settle('quotes counter', moveQuotesCount(w.quote.quotedStatusId, 1)) : undefined,
    puts.length + directory.deletes.length > 0 ? settle('index and entries', batchWrite(puts, directory.deletes)) : undefined,
  ]);
  return { ok: true };
}

/**
 * The author's statusesCount and lastStatusAt; the account as it is now is known for the rest of the invocation.
 * Posts of one author run side by side and their updates may land in any order: lastStatusAt only moves forward
 * (a later post's update that lands first is not undone by an earlier one's, which then only counts).
 */
export async function countAuthorPosted(accountId: string, at: string): Promise<void> {
  const forward = await updateItem(
    {
      Key: keys.account(accountId),
      UpdateExpression: 'SET lastStatusAt = :at ADD statusesCount :d',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastStatusAt) OR attribute_type(lastStatusAt, :null) OR lastStatusAt < :at)',
      ExpressionAttributeValues: { ':d': 1, ':at': at, ':null': 'NULL' },
    },
    anyItem,
  );
  const account =
    forward ??
    (await updateItem(
      { Key: keys.account(accountId), UpdateExpression: 'ADD statusesCount :d', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':d': 1 } },
      anyItem,
    ));
  // A deleted account (the condition failed) is read, if at all, from the table.
  if (account) knowItem(keys.account(accountId), account);
}

/**
 * What rendering the new status would read and this invocation knows: a status that did not
 * exist a moment ago has no favourite, reblog, bookmark or pin of its author, and its poll is
 * as written. Its thread may be muted (a reply): that is still read.
 */
function knowNewStatus(status: Status, poll: Poll | undefined): void {
  const author = status.accountId;
  for (const key of [keys.favourite(author, status.id), keys.reblogFlag(author, status.id), keys.bookmark(author, status.id), keys.pin(author, status.id)]) {
    knowItem(key, undefined);
  }
  if (status.conversationId === status.id) knowItem(keys.conversationMute(author, status.conversationId), undefined);
  if (poll) {
    knowItem(keys.poll(poll.id), pollRecord(poll));
    knowItem(keys.pollVote(poll.id, author), undefined);
  }
}

export type StatusRemoval = {
  /** The status's poll, removed with it. */
  poll?: Poll;
  /** Whether the replied-to status was there when read: its counter moves only then. */
  parentExists: boolean;
  /** Whether the status entered the public and hashtag timelines (lib/policy decides): their entries go. */
  listed: boolean;
};

/** Why a status was not removed: it is gone (or not its author's), or something it names changed meanwhile. */
export type StatusRemovalFailure = 'status-gone' | 'changed-meanwhile';

/**
 * Removes a status (not a reblog) in one transaction: the status (only while
 * still its author's), the author's home entry and counters, the attachments'
 * hold on it, the poll, the reply index and the parent's counter, and the public
 * and tag entries (those beyond the transaction limit right after). A parent
 * deleted meanwhile is retried without its counter. The instance's status count
 * moves once it has committed. A remote status keeps its id pointer, which then
 * names no status: a tombstone, so the same Note delivered again is not stored again.
 */
export async function removeStatus(status: Status, r: StatusRemoval): Promise<{ ok: true } | { failed: StatusRemovalFailure }> {
  const hasMedia = status.mediaIds.length > 0;
  const build = (withParent: boolean): { items: TransactItem[]; overflow: { PK: string; SK: string }[] } => {
    const items: TransactItem[] = [
      deleteOwnStatus(status),
      { Delete: { Key: keys.homeEntry(status.accountId, status.id) } },
      ...countAuthorStatus(status.accountId, -1),
      // A remote status's attachments were made for it alone; a local one's may be attached again (delete and redraft).
      ...(isRemoteStatus(status) ? deleteRemoteMediaItems(status.id, status.mediaIds) : releaseMediaItems(status.id, status.mediaIds)),
      ...(r.poll ? deletePollItems(r.poll) : []),
      // Its quote goes with it, in the state it had when read (the quoted status's count moves once, below).
      ...(status.quote?.quotedStatusId ? [deleteQuoteAsRead({ quotedStatusId: status.quote.quotedStatusId, statusId: status.id, state: status.quote.state })] : []),
    ];
    if (status.inReplyToId) {
      items.push(deleteReply(status.inReplyToId, status.id));
      if (withParent) items.push(countReply(status.inReplyToId, -1));
    }
    const entries = publicEntryRecords(status, hasMedia, r.listed).map(keyOf);
    const room = MAX_TRANSACTION_ITEMS - items.length;
    items.push(...entries.slice(0, room).map((Key): TransactItem => ({ Delete: { Key } })));
    return { items, overflow: entries.slice(room) };
  };

  let plan = build(r.parentExists);
  let result = await transact(plan.items);
  if (!result.ok && !result.failed.includes(0) && r.parentExists) {
    // The parent was deleted meanwhile: its counter no longer matters.
    plan = build(false);
    result = await transact(plan.items);
  }
  if (!result.ok) return { failed: result.failed.includes(0) ? 'status-gone' : 'changed-meanwhile' };
  // The instance counts its own statuses only (Mastodon's status_count).
  if (!isRemoteStatus(status)) await countOnInstance('statusCount', -1);
  if (status.quote?.state === 'accepted' && status.quote.quotedStatusId) await moveQuotesCount(status.quote.quotedStatusId, -1);
  if (plan.overflow.length > 0) await batchWrite([], plan.overflow);
  return { ok: true };
}

export type RemoteStatusWrite = {
  /** The status, with its `uri` (the Note's id) and the local id minted for it. */
  status: Status;
  /** Its attachments, new items naming the status (remote files, not fetched). */
  media: Media[];
  /** The poll of a Question (`remote`), with its expiry bucket entry: local voters hear of its end. */
  poll?: Poll;
  /** Whether the status enters the public and hashtag timelines (lib/policy decides). */
  listed: boolean;
  /** The author as stored: a discoverable one's profile-directory entry moves in the same transaction. */
  author?: Listed;
  /** The quote it makes of a status we have (lib/db/quotes.ts), written with it; an accepted one counts after. */
  quote?: Quote;
};

/** Why a remote status was not written: its id is stored already (another delivery won), or its parent went meanwhile. */
export type RemoteStatusFailure = 'already-stored' | 'reply-target-gone';

/**
 * Stores a status received from another server in one transaction: the pointer
 * from its ActivityPub id (absent, so a Note is stored once however often it
 * arrives), the status, the author's counters, its attachments, the reply index
 * and the parent's counter, and the public and tag entries (those beyond the
 * transaction limit right after). Unlike posting, no home entry for the author
 * (its home is on its own server) and no instance count (ours only).
 */
export async function writeRemoteStatus(w: RemoteStatusWrite): Promise<{ ok: true } | { failed: RemoteStatusFailure }> {
  const { status } = w;
  if (!status.uri) throw new Error(`writeRemoteStatus: status ${status.id} has no uri`);
  const hasMedia = status.mediaIds.length > 0;
  const items: TransactItem[] = [
    { Put: { Item: statusUriPointer(status.uri, status.id), ConditionExpression: 'attribute_not_exists(PK)' } },
    putStatus(status),
    ...countAuthorStatus(status.accountId, 1, status.createdAt),
    ...directoryActivityItems(w.author, status.createdAt),
    ...w.media.map(putRemoteMedia),
    ...(w.poll ? [{ Put: { Item: pollRecord(w.poll) } }, { Put: { Item: pollExpiryRecord(w.poll) } }] : []),
    ...(w.quote ? [putQuote(w.quote)] : []),
  ];
  let parentAt = -1;
  if (status.inReplyToId) {
    items.push(putReply({ ...status, inReplyToId: status.inReplyToId }));
    parentAt = items.length;
    items.push(countReply(status.inReplyToId, 1));
  }
  const entries = publicEntryRecords(status, hasMedia, w.listed);
  const room = MAX_TRANSACTION_ITEMS - items.length;
  items.push(...entries.slice(0, room).map((Item): TransactItem => ({ Put: { Item } })));

  const result = await transact(items);
  if (!result.ok) {
    if (result.failed.includes(0)) return { failed: 'already-stored' };
    if (result.failed.includes(parentAt)) return { failed: 'reply-target-gone' };
    throw new Error(`storing remote status ${status.id}: transaction condition failed at ${result.failed.join(',')}`);
  }
  if (entries.length > room) await batchWrite(entries.slice(room));
  if (w.quote?.state === 'accepted') await moveQuotesCount(w.quote.quotedStatusId, 1);
  return { ok: true };
}
