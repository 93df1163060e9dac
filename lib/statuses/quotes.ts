// Quote posts (Mastodon 4.4/4.5): what may be quoted and how a new quote starts (PostStatusService#attach_quote!),
// the quoted author's list of quotes and revocation (Api::V1::Statuses::QuotesController, RevokeQuoteService),
// a status's quote policy (InteractionPoliciesController), and what a deleted or edited quoted status does to
// its quotes. The rules of who may quote and what a viewer sees are lib/policy/quotes.ts.
import { accountById, type Account } from '../db/accounts';
import { followEdge } from '../db/follows';
import { acceptedQuotesPage, changeQuoteState, moveQuotesCount, quoteOf, quotesOfPage, setQuotePolicy, type Quote } from '../db/quotes';
import { statusById, statusesByIds, type QuotePolicy, type Status, type Visibility } from '../db/statuses';
import { nowIso } from '../db/table';
import { forbidden, notFound } from '../errors';
import { quoteRequestId, sendQuoteRequest, sendQuoteStampDelete } from '../federation/quotes';
import { sendNoteRefresh } from '../federation/send_edits';
import { isId } from '../ids';
import { log } from '../log';
import type { Page } from '../paging';
import { mayQuote, mayView, openToAnyone, viewableStatus, visibleTo } from '../policy';
import { enqueue } from '../queue';

/** Mastodon's `statuses.errors.quoted_status_not_found`, its answer to every refused quote. */
const QUOTED_NOT_FOUND = 'The post you are trying to quote does not appear to exist.';

/**
 * The status `author` quotes when naming `id`: a reblog's original (Mastodon quotes `proper`), and only one the
 * author may quote (StatusPolicy#quote?): unknown, invisible, blocked either way, or refused by its policy is 404.
 */
export async function quotableStatus(id: string, author: Account): Promise<Status> {
  const named = isId(id) ? await statusById(id) : undefined;
  const status = named?.reblogOfId ? await statusById(named.reblogOfId) : named;
  if (!status || !(await mayQuote(author, status, async () => (await followEdge(author.id, status.accountId)) !== undefined))) throw notFound(QUOTED_NOT_FOUND);
  return status;
}

/** The policy a new status keeps: only an author quotes a private or direct status (Mastodon's downgrade_quote_policy). */
export const storedQuotePolicy = (policy: QuotePolicy, visibility: Visibility): QuotePolicy => (openToAnyone({ visibility }) ? policy : 'nobody');

/**
 * The quote a new status makes of `quoted`. A local quoted status has just passed its author's policy, so the
 * quote is accepted at once; a remote one waits for its author's approval (pending, with the id of the
 * QuoteRequest our federation sends).
 */
export function quoteForNewStatus(status: Status, quoted: Status, author: Account): Quote {
  const local = quoted.uri === null;
  return {
    statusId: status.id,
    accountId: status.accountId,
    quotedStatusId: quoted.id,
    quotedAccountId: quoted.accountId,
    state: local ? 'accepted' : 'pending',
    activityUri: local ? null : quoteRequestId(author.username, status.id),
    approvalUri: null,
    createdAt: status.createdAt,
  };
}

/** A quote of a remote status asks its author's approval (the QuoteRequest); the status stands if sending fails. */
export async function requestQuoteApproval(author: Account, status: Status, quoted: Status, quote: Quote): Promise<void> {
  if (quote.state !== 'pending' || quoted.uri === null) return;
  const quotedAuthor = await accountById(quoted.accountId);
  if (quotedAuthor) await sendQuoteRequest(author, status, quoted, quotedAuthor, quote);
}

/**
 * The quoted author hears of an accepted quote (`quote`, about the quoting status), as Mastodon's fan-out does;
 * the notify worker keeps to local recipients and applies blocks, mutes and the notification policy. The
 * status stands if the queue is briefly unavailable.
 */
export async function notifyQuoted(quote: Quote): Promise<void> {
  if (quote.state !== 'accepted' || quote.quotedAccountId === quote.accountId) return;
  try {
    await enqueue('notify', { type: 'quote', accountId: quote.quotedAccountId, fromAccountId: quote.accountId, statusId: quote.statusId });
  } catch (err) {
    log.error('quote notification enqueue failed', { statusId: quote.statusId, err });
  }
}

/**
 * The accepted quotes of a status the viewer may see, newest quoting status first (paged by its id). Its author
 * sees every one; anyone else only the quoting statuses it may see, as Mastodon's StatusFilter leaves them.
 */
export async function quotesOf(id: string, viewer: Account, page: Page): Promise<{ items: Status[]; newest?: string; oldest?: string }> {
  const quoted = await viewableStatus(id, viewer);
  const entries = await acceptedQuotesPage(quoted.id, page);
  const found = await statusesByIds(entries.map((q) => q.statusId));
  const statuses = entries.flatMap((q) => found.get(q.statusId) ?? []);
  const items = quoted.accountId === viewer.id ? statuses : await visibleTo(viewer, statuses, 'lookup');
  return { items, newest: entries[0]?.statusId, oldest: entries.at(-1)?.statusId };
}

/**
 * The author of status `id` revokes the quote `quotingStatusId` makes of it (RevokeQuoteService, Quote#reject!):
 * an accepted quote becomes `revoked` (its count goes), a pending one `rejected`; one already refused stays.
 * 404 for a status the caller cannot see or a quote that is not of it; 403 for a quote of someone else's status.
 * Answers the quoting status, as it now is.
 */
export async function revokeQuote(viewer: Account, id: string, quotingStatusId: string): Promise<Status> {
  const quoted = await viewableStatus(id, viewer);
  const quote = isId(quotingStatusId) ? await quoteOf(quoted.id, quotingStatusId) : undefined;
  if (!quote) throw notFound();
  if (quote.quotedAccountId !== viewer.id) throw forbidden('This action is not allowed');
  const to = quote.state === 'accepted' ? 'revoked' : quote.state === 'pending' ? 'rejected' : undefined;
  if (to && (await changeQuoteState(quote, to)) === 'changed') {
    if (quote.state === 'accepted') await moveQuotesCount(quote.quotedStatusId, -1);
    await sendQuoteStampDelete(viewer, quoted, quote, await accountById(quote.accountId));
  }
  const quoting = await statusById(quote.statusId, true);
  if (!quoting) throw notFound();
  return quoting;
}

/** The author sets who may quote its status (PUT /api/v1/statuses/:id/interaction_policy); past quotes stay. */
export async function setInteractionPolicy(viewer: Account, id: string, policy: QuotePolicy): Promise<Status> {
  const status = isId(id) ? await statusById(id) : undefined;
  if (!status || !(await mayView(viewer, status))) throw notFound();
  if (status.accountId !== viewer.id || status.reblogOfId) throw forbidden('This action is not allowed');
  const stored = storedQuotePolicy(policy, status.visibility);
  if (stored === (status.quoteApprovalPolicy ?? 'nobody')) return status;
  const updated = await setQuotePolicy(status.id, viewer.id, stored);
  if (!updated) throw notFound();
  // Other servers hold the policy in their copy (interactionPolicy.canQuote): they are sent the Note again.
  await sendNoteRefresh(updated, viewer);
  return updated;
}

/**
 * A deleted status's quotes become `deleted` (on their records and their quoting statuses), every page of them;
 * a quote changed meanwhile is left as it is. Never throws: the status is gone either way.
 */
export async function quotedStatusDeleted(status: Pick<Status, 'id'>): Promise<void> {
  try {
    let after: string | undefined;
    do {
      const page = await quotesOfPage(status.id, after);
      for (const quote of page.items) if (quote.state !== 'deleted') await changeQuoteState(quote, 'deleted');
      after = page.next;
    } while (after);
  } catch (err) {
    log.error('marking quotes of a deleted status failed', { statusId: status.id, err });
  }
}
