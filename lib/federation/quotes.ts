// Quote approval over ActivityPub (FEP-044f, as Mastodon 4.5 sends and reads it): the QuoteRequest our account
// sends when it quotes a remote status, the Accept (with its QuoteAuthorization stamp) or Reject our account sends
// when a remote account asks to quote one of our statuses, and the stamp document itself.
import type { Account } from '../db/accounts';
import type { Quote } from '../db/quotes';
import type { Status } from '../db/statuses';
import { deliver, quietly, statusAudience } from './outbox';
import { DOCUMENT_CONTEXT, renderNote, statusApId, type ApObject } from './render';
import { AS_PUBLIC, apUrls } from './urls';
import { quoteAuthorizationId } from './quote_ids';
import { accountById, accountByUsername } from '../db/accounts';
import { statusById } from '../db/statuses';
import { notFound } from '../errors';
import { isId } from '../ids';

export { ourQuoteRequest, quoteAuthorizationId, quoteRequestId } from './quote_ids';

/** The QuoteAuthorization document: who approved which status quoting which. */
export function quoteAuthorizationOf(quotedAuthor: Account, quoted: Status, quoting: Status, quotingAuthor: Account): ApObject {
  return {
    '@context': [...DOCUMENT_CONTEXT, { QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization', interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' }, interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' } }],
    id: quoteAuthorizationId(quotedAuthor.username, quoting.id),
    type: 'QuoteAuthorization',
    attributedTo: apUrls.actor(quotedAuthor.username),
    interactingObject: statusApId(quoting, quotingAuthor),
    interactionTarget: statusApId(quoted, quotedAuthor),
  };
}

/** Asks the remote author of `quoted` to approve our status's quote: the QuoteRequest with our Note as `instrument`. */
export async function sendQuoteRequest(quoter: Account, quoting: Status, quoted: Status, quotedAuthor: Account, quote: Quote): Promise<void> {
  if (!quote.activityUri || !quoted.uri || !quotedAuthor.inboxUrl) return;
  const { activityUri } = quote;
  await quietly('QuoteRequest', { statusId: quoting.id }, async () => {
    const activity = {
      '@context': DOCUMENT_CONTEXT,
      id: activityUri,
      type: 'QuoteRequest',
      actor: apUrls.actor(quoter.username),
      object: quoted.uri,
      instrument: await renderNote(quoting, quoter),
    };
    await deliver(activity, [quotedAuthor.sharedInboxUrl ?? quotedAuthor.inboxUrl ?? undefined], quoter);
  });
}

/** Our author's answer to a remote QuoteRequest: Accept with the stamp as `result`, or Reject. */
export async function sendQuoteAnswer(quotedAuthor: Account, requester: Account, request: ApObject, stamp: string | undefined): Promise<void> {
  const inbox = requester.inboxUrl ?? undefined;
  const requestId = typeof request.id === 'string' ? request.id : '';
  await quietly(stamp ? 'Accept(QuoteRequest)' : 'Reject(QuoteRequest)', { requestId }, async () => {
    const activity = {
      '@context': DOCUMENT_CONTEXT,
      id: apUrls.activityId(quotedAuthor.username, stamp ? 'accepts/quote_requests' : 'rejects/quote_requests', encodeURIComponent(requestId)),
      type: stamp ? 'Accept' : 'Reject',
      actor: apUrls.actor(quotedAuthor.username),
      to: requester.uri ?? undefined,
      object: request,
      ...(stamp ? { result: stamp } : {}),
    };
    await deliver(activity, [inbox], quotedAuthor);
  });
}

/**
 * Our author withdraws its approval of a quote of its status (RevokeQuoteService): the Delete of our stamp, by
 * its bare id as Mastodon sends it, to the quoting author's server and to where the quoted status went.
 */
export async function sendQuoteStampDelete(quotedAuthor: Account, quoted: Status, quote: Quote, quotingAuthor: Account | undefined): Promise<void> {
  if (quoted.uri !== null || quotedAuthor.domain) return;
  const stamp = quoteAuthorizationId(quotedAuthor.username, quote.statusId);
  await quietly('Delete(QuoteAuthorization)', { statusId: quote.statusId }, async () => {
    const { inboxes } = await statusAudience(quoted, quotedAuthor);
    const quoterInbox = quotingAuthor?.domain ? (quotingAuthor.sharedInboxUrl ?? quotingAuthor.inboxUrl ?? undefined) : undefined;
    const to = [...new Set([...(quoterInbox ? [quoterInbox] : []), ...inboxes])];
    if (to.length === 0) return;
    const activity = { '@context': DOCUMENT_CONTEXT, id: `${stamp}#delete`, type: 'Delete', actor: apUrls.actor(quotedAuthor.username), to: [AS_PUBLIC], object: stamp };
    await deliver(activity, to, quotedAuthor);
  });
}

/** The stamp `username` gave the quote status `quotingStatusId` makes of its status, while that quote stands accepted; else 404. */
export async function quoteAuthorizationDocument(username: string, quotingStatusId: string): Promise<ApObject> {
  const [author, quoting] = await Promise.all([accountByUsername(username), isId(quotingStatusId) ? statusById(quotingStatusId) : undefined]);
  const quote = quoting?.quote;
  if (!author || author.domain || !quoting || quote?.state !== 'accepted' || quote.quotedAccountId !== author.id || !quote.quotedStatusId) throw notFound();
  const [quoted, quotingAuthor] = await Promise.all([statusById(quote.quotedStatusId), accountById(quoting.accountId)]);
  if (!quoted || !quotingAuthor) throw notFound();
  return quoteAuthorizationOf(author, quoted, quoting, quotingAuthor);
}
