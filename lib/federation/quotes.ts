// Quote approval over ActivityPub (FEP-044f, as Mastodon 4.5 sends and reads it): the QuoteRequest our account
// sends when it quotes a remote status, the Accept (with its QuoteAuthorization stamp) or Reject our account sends
// when a remote account asks to quote one of our statuses, the stamp document itself, and the check of a stamp
// another server gave a quote between two other servers (VerifyQuoteService).
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
import { log } from '../log';
import { AS_CONTEXT } from './activities';
import { FetchFailed, fetchObject } from './fetch';
import { asArray, idOf, sameHost } from './vocab';

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

/** How long the one fetch of a stamp may take: it runs on the inbox worker's path. */
export const STAMP_FETCH_TIMEOUT_MS = 5_000;

/**
 * Does the stamp `stampUri` approve the remote quote `quoting` (by `quotingAuthor`) makes of `quoted` (by
 * `quotedAuthor`)? Mastodon's VerifyQuoteService: the stamp is fetched (signed, once, bounded) and must be the very
 * document named, in the ActivityStreams context, a QuoteAuthorization on its author's server, attributed to the
 * quoted author, whose interactingObject is the quoting Note and interactionTarget the quoted status. A stamp
 * on another server than the quoted author's is refused before any fetch: it could never pass the checks.
 * Any failure, the fetch's included, answers false.
 */
export async function stampApproves(stampUri: string, quoting: Status, quoted: Status, quotedAuthor: Account): Promise<boolean> {
  if (!quotedAuthor.domain || !quotedAuthor.uri || !quoting.uri || !quoted.uri) return false;
  if (!sameHost(stampUri, quotedAuthor.uri)) return false;
  let doc: ApObject;
  try {
    doc = await fetchObject(stampUri, { timeoutMs: STAMP_FETCH_TIMEOUT_MS });
  } catch (err) {
    if (!(err instanceof FetchFailed)) throw err;
    log.info('quote stamp not fetched', { stampUri, statusId: quoting.id, err: err.message });
    return false;
  }
  const attributedTo = idOf(doc.attributedTo);
  return (
    doc.id === stampUri &&
    asArray(doc['@context']).includes(AS_CONTEXT) &&
    asArray(doc.type).some((t) => t === 'QuoteAuthorization') &&
    sameHost(stampUri, attributedTo) &&
    idOf(doc.interactingObject) === quoting.uri &&
    idOf(doc.interactionTarget) === quoted.uri &&
    attributedTo === quotedAuthor.uri
  );
}
