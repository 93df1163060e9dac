// Quotes (Mastodon 4.4's Quote model): one record per quoting status, under the quoted status's partition
// (keys.quote), holding its state and, for federation, the QuoteRequest's id (`activityUri`) and the quoted
// author's approval stamp (`approvalUri`). The quoting status carries the same state (statuses.ts `quote`) so
// that a page renders it without a read: every change of state is one transaction over both.
//
// The quoted status's quotesCount (accepted quotes only) is not in those transactions: every quote of a viral
// status would hold the one status item, and DynamoDB cancels transactions that meet on an item (see
// interactions.ts, "Counters"). The transaction that moves a quote into or out of `accepted` is conditioned on
// the state it read, so exactly one request wins each move, and that one moves the count with a single-item ADD.
import { z } from 'zod';
import * as keys from './keys';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import { quoteStates, statusItem, type QuotePolicy, type QuoteState, type Status } from './statuses';
import { getItem, putItem, query, transact, updateItem, type TransactItem } from './table';

export const quoteItem = z.object({
  /** The quoting status and its author. */
  statusId: z.string(),
  accountId: z.string(),
  quotedStatusId: z.string(),
  quotedAccountId: z.string(),
  state: z.enum(quoteStates),
  /** The QuoteRequest's id, for a quote of a remote status (FEP-044f); null for local ones. */
  activityUri: z.string().nullable().default(null),
  /** The quoted author's QuoteAuthorization (the approval stamp) of a remote quote; null for local ones. */
  approvalUri: z.string().nullable().default(null),
  createdAt: z.string(),
});
export type Quote = z.infer<typeof quoteItem>;

const quoteRecord = (quote: Quote) => ({ ...keys.quote(quote.quotedStatusId, quote.statusId), ...quoteItem.parse(quote) });

/** The quote record, written in the posting transaction: one per quoting status. */
export const putQuote = (quote: Quote): TransactItem => ({ Put: { Item: quoteRecord(quote), ConditionExpression: 'attribute_not_exists(PK)' } });

/** Removes the quote record with its quoting status, only in the state it was read (so the count moves once). */
export const deleteQuoteAsRead = (quote: Pick<Quote, 'quotedStatusId' | 'statusId' | 'state'>): TransactItem => ({
  Delete: {
    Key: keys.quote(quote.quotedStatusId, quote.statusId),
    ConditionExpression: 'attribute_not_exists(PK) OR #s = :s',
    ExpressionAttributeNames: { '#s': 'state' },
    ExpressionAttributeValues: { ':s': quote.state },
  },
});

/** The quote of `quotingStatusId`, a quote of `quotedStatusId`, if any. */
export const quoteOf = (quotedStatusId: string, quotingStatusId: string) => getItem(keys.quote(quotedStatusId, quotingStatusId), quoteItem, true);

const quotesTarget = (quotedStatusId: string) => ({ partitionAttr: 'PK' as const, sortAttr: 'SK' as const, partition: keys.quotesPartition(quotedStatusId) });

/** A page of a status's accepted quotes, newest quoting status first (paged by the quoting status's id). */
export const acceptedQuotesPage = (quotedStatusId: string, page: Page, accept?: (items: Quote[]) => Promise<Quote[]>) =>
  queryIdRange(quotesTarget(quotedStatusId), page, quoteItem, {
    filter: { expression: '#s = :accepted', names: { '#s': 'state' }, values: { ':accepted': 'accepted' } },
    accept,
  });

/** Every quote of a status, one page of the partition at a time (`after`: the last quoting status id read). */
export async function quotesOfPage(quotedStatusId: string, after?: string): Promise<{ items: Quote[]; next?: string }> {
  const res = await query(
    {
      KeyConditionExpression: after ? 'PK = :pk AND SK > :after' : 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.quotesPartition(quotedStatusId), ...(after ? { ':after': keys.quote(quotedStatusId, after).SK } : {}) },
      Limit: 100,
    },
    quoteItem,
  );
  return { items: res.items, next: res.lastKey ? res.items.at(-1)?.statusId : undefined };
}

const present = z.object({ PK: z.string() });

/** The quoted status's quotesCount, by one (never onto a status that is gone: an ADD would leave a stub). */
export async function moveQuotesCount(quotedStatusId: string, delta: 1 | -1): Promise<boolean> {
  const moved = await updateItem(
    {
      Key: keys.status(quotedStatusId),
      UpdateExpression: 'ADD quotesCount :d',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':d': delta },
    },
    present,
  );
  return moved !== undefined;
}

/**
 * Moves a quote from the state it was read in to `to`, on its record and on its quoting status, in one
 * transaction: 'changed', or 'unchanged' when either moved meanwhile or the quoting status is gone. The count
 * is the caller's (moveQuotesCount), once it knows it won.
 */
export async function changeQuoteState(quote: Quote, to: QuoteState, approval?: { approvalUri: string; activityUri?: string }): Promise<'changed' | 'unchanged'> {
  if (quote.state === to) return 'unchanged';
  // An approval received over ActivityPub keeps its stamp (and the QuoteRequest it answers) with the state.
  const stamp = approval ? ', approvalUri = :stamp' + (approval.activityUri ? ', activityUri = :request' : '') : '';
  const stampValues = approval ? { ':stamp': approval.approvalUri, ...(approval.activityUri ? { ':request': approval.activityUri } : {}) } : {};
  const result = await transact([
    {
      Update: {
        Key: keys.quote(quote.quotedStatusId, quote.statusId),
        UpdateExpression: `SET #s = :to${stamp}`,
        ConditionExpression: '#s = :from',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: { ':to': to, ':from': quote.state, ...stampValues },
      },
    },
    {
      Update: {
        Key: keys.status(quote.statusId),
        UpdateExpression: `SET #q.#s = :to${approval ? ', #q.approvalUri = :stamp' : ''}`,
        ConditionExpression: 'attribute_exists(PK) AND #q.#s = :from AND #q.#qs = :quoted',
        ExpressionAttributeNames: { '#q': 'quote', '#s': 'state', '#qs': 'quotedStatusId' },
        ExpressionAttributeValues: { ':to': to, ':from': quote.state, ':quoted': quote.quotedStatusId, ...(approval ? { ':stamp': approval.approvalUri } : {}) },
      },
    },
  ]);
  return result.ok ? 'changed' : 'unchanged';
}

/** Sets who may quote a status (PUT /api/v1/statuses/:id/interaction_policy), only while it is the author's: the status as it now is. */
export const setQuotePolicy = (statusId: string, accountId: string, policy: QuotePolicy): Promise<Status | undefined> =>
  updateItem(
    {
      Key: keys.status(statusId),
      UpdateExpression: 'SET quoteApprovalPolicy = :p',
      ConditionExpression: 'attribute_exists(PK) AND accountId = :a',
      ExpressionAttributeValues: { ':p': policy, ':a': accountId },
    },
    statusItem,
  );

const approvalPointer = z.object({ quotedStatusId: z.string(), statusId: z.string() });

/**
 * Remembers which quote a remote author's stamp approves, so that its Delete (the author revoking its approval)
 * finds the quote: the stamp's id names nothing of ours.
 */
export async function rememberApprovalStamp(quote: Pick<Quote, 'quotedStatusId' | 'statusId'>, approvalUri: string): Promise<void> {
  await putItem({ ...keys.quoteApprovalUri(approvalUri), quotedStatusId: quote.quotedStatusId, statusId: quote.statusId });
}

/** The quote whose approval stamp is `approvalUri`, while it still holds that stamp. */
export async function quoteByApprovalStamp(approvalUri: string): Promise<Quote | undefined> {
  const pointer = await getItem(keys.quoteApprovalUri(approvalUri), approvalPointer, true);
  const quote = pointer ? await quoteOf(pointer.quotedStatusId, pointer.statusId) : undefined;
  return quote?.approvalUri === approvalUri ? quote : undefined;
}
