// Quote approval received (FEP-044f, as Mastodon 4.5's ActivityPub::Activity::QuoteRequest and the quote cases
// of Accept and Reject): a remote account asks to quote one of our statuses, and the remote author of a status
// one of ours quotes answers our QuoteRequest; and the stamp a received Note names for its quote of a third
// server's status, verified (VerifyQuoteService).
import { accountById, type Account } from '../db/accounts';
import { changeQuoteState, moveQuotesCount, quoteByApprovalStamp, quoteOf, rememberApprovalStamp } from '../db/quotes';
import { remoteStatusIdByUri } from '../db/remote';
import { statusById, type Status } from '../db/statuses';
import { followEdge } from '../db/follows';
import { MAX_ID_LENGTH, storeRemoteNote } from '../federation/notes';
import { sendNoteRefresh } from '../federation/send_edits';
import { ourQuoteRequest, quoteAuthorizationId, sendQuoteAnswer, stampApproves } from '../federation/quotes';
import { apUrls } from '../federation/urls';
import { httpUrl, idOf, objectOf, sameHost, typeOf, type ApDocument } from '../federation/vocab';
import { mayQuote } from '../policy';
import { enqueue } from '../queue';
import { localStatusAt } from './like';
import { localAccountAt, onActorsServer, type Outcome, type Received } from './received';

/** The actor's quoting status the request names as its `instrument`: embedded (stored as any Note is) or already stored. */
async function quotingStatusOf(received: Received): Promise<Status | undefined> {
  const instrument = received.activity.instrument;
  const id = idOf(instrument);
  if (!id || !onActorsServer(received, id)) return undefined;
  const embedded = objectOf(instrument);
  if (embedded && typeOf(embedded) !== undefined) return storeRemoteNote(embedded, received.actor);
  const stored = await remoteStatusIdByUri(id);
  return stored ? statusById(stored, true) : undefined;
}

/**
 * QuoteRequest: a quote of one of our statuses by the actor. Approved when the actor may quote it
 * (StatusPolicy#quote?: our statuses' policies are automatic, so never left for a manual review): the quote is
 * accepted with our stamp, counted, its author notified, and the Accept sent with the stamp as `result`; else the
 * Reject is sent and the quote, if stored, rejected. An allowed request whose Note does not quote the status (or
 * cannot be had) is left unanswered, as Mastodon's sanity check leaves it.
 */
export async function quoteRequest(received: Received): Promise<Outcome> {
  const quoted = await localStatusAt(idOf(received.activity.object));
  if (!quoted) return 'ignored';
  const author = await accountById(quoted.accountId);
  if (!author) return 'ignored';
  const quoting = await quotingStatusOf(received);
  const quote = quoting && quoting.accountId === received.actor.id ? await quoteOf(quoted.id, quoting.id) : undefined;
  const allowed = await mayQuote(received.actor, quoted, async () => (await followEdge(received.actor.id, quoted.accountId)) !== undefined);
  if (allowed && !quote) return 'ignored';
  if (!allowed || !quote) {
    if (quote && (quote.state === 'pending' || quote.state === 'accepted')) {
      if ((await changeQuoteState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected')) === 'changed' && quote.state === 'accepted') await moveQuotesCount(quoted.id, -1);
    }
    await sendQuoteAnswer(author, received.actor, received.activity, undefined);
    return 'applied';
  }
  const stamp = quoteAuthorizationId(author.username, quote.statusId);
  if (quote.state === 'pending' && (await changeQuoteState(quote, 'accepted', { approvalUri: stamp, activityUri: received.id })) === 'changed') {
    await moveQuotesCount(quoted.id, 1);
  }
  // A redelivery answers again and notifies once (a notification is written once).
  await sendQuoteAnswer(author, received.actor, received.activity, stamp);
  await enqueue('notify', { type: 'quote', accountId: author.id, fromAccountId: received.actor.id, statusId: quote.statusId });
  return 'applied';
}

/** Our quote a received Accept or Reject answers: by the QuoteRequest it names (embedded or by id), of a status of ours quoting the actor's. */
async function answeredQuote(received: Received) {
  const object = received.activity.object;
  const embedded = objectOf(object);
  if (embedded && typeOf(embedded) !== 'QuoteRequest') return undefined;
  const ours = ourQuoteRequest(idOf(object));
  if (!ours) return undefined;
  const [quoter, quoting] = await Promise.all([localAccountAt(apUrls.actor(ours.username)), statusById(ours.statusId, true)]);
  // Only the quoted author answers, and only about a quote our account made of its status.
  if (!quoter || !quoting || quoting.accountId !== quoter.id || quoting.uri !== null) return undefined;
  if (!quoting.quote?.quotedStatusId || quoting.quote.quotedAccountId !== received.actor.id) return undefined;
  return quoteOf(quoting.quote.quotedStatusId, quoting.id);
}

/** Is the Accept or Reject about a QuoteRequest (its object one, or one of our QuoteRequest ids)? */
export const answersQuoteRequest = (received: Received): boolean => {
  const embedded = objectOf(received.activity.object);
  return embedded ? typeOf(embedded) === 'QuoteRequest' : ourQuoteRequest(idOf(received.activity.object)) !== undefined;
};

/** Accept of our QuoteRequest: the quote is accepted with the stamp its `result` names, on the actor's server. */
export async function quoteAccepted(received: Received): Promise<Outcome> {
  const quote = await answeredQuote(received);
  const stamp = idOf(received.activity.result);
  if (!quote || quote.state !== 'pending' || !stamp || !sameHost(stamp, received.actor.uri)) return 'ignored';
  // Remembered first: once accepted, a Delete of the stamp must find the quote.
  await rememberApprovalStamp(quote, stamp);
  if ((await changeQuoteState(quote, 'accepted', { approvalUri: stamp })) !== 'changed') return 'ignored';
  await moveQuotesCount(quote.quotedStatusId, 1);
  // Our Note now carries the stamp (quoteAuthorization): where it went, it is sent again.
  const [quoting, quoter] = await Promise.all([statusById(quote.statusId, true), accountById(quote.accountId)]);
  if (quoting && quoter) await sendNoteRefresh(quoting, quoter);
  return 'applied';
}

/** Reject of our QuoteRequest (or of a quote approved before): accepted becomes revoked, pending rejected (Quote#reject!). */
export async function quoteRejected(received: Received): Promise<Outcome> {
  const quote = await answeredQuote(received);
  if (!quote || (quote.state !== 'pending' && quote.state !== 'accepted')) return 'ignored';
  if ((await changeQuoteState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected')) !== 'changed') return 'ignored';
  if (quote.state === 'accepted') await moveQuotesCount(quote.quotedStatusId, -1);
  return 'applied';
}

/**
 * Delete of an approval stamp (Mastodon's Delete#revoke_quote): the quoted author withdraws its approval of a
 * quote we hold (by one of our accounts, or between two other servers); accepted becomes revoked, pending rejected. Undefined when the id is no stamp we
 * hold of the actor's, so that the caller goes on to its other cases.
 */
export async function quoteApprovalDeleted(received: Received, objectId: string): Promise<Outcome | undefined> {
  const quote = await quoteByApprovalStamp(objectId);
  if (!quote || quote.quotedAccountId !== received.actor.id) return undefined;
  if (quote.state !== 'pending' && quote.state !== 'accepted') return 'ignored';
  if ((await changeQuoteState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected')) !== 'changed') return 'ignored';
  if (quote.state === 'accepted') await moveQuotesCount(quote.quotedStatusId, -1);
  return 'applied';
}

/** The approval stamp a received Note names (`quoteAuthorization`, by id or embedded: only its id is trusted). */
export function quoteStampOf(note: ApDocument): string | undefined {
  const stamp = httpUrl(idOf(note.quoteAuthorization));
  return stamp && stamp.length <= MAX_ID_LENGTH ? stamp : undefined;
}

/**
 * A received Note's quote of a status of a third server, pending, with the stamp `stampUri` its Note names
 * (`quoteAuthorization`, on a Create or an Update): verified as Mastodon's VerifyQuoteService does
 * (lib/federation/quotes.ts stampApproves, one fetch), then accepted with that stamp and counted. A quote of one
 * of our statuses is never accepted here (our author answers its QuoteRequest), nor one that is not pending; a
 * stamp that fails a check leaves the quote pending. 'applied' when it was accepted now.
 */
export async function verifyQuoteStamp(quoting: Status, quotingAuthor: Account, stampUri: string | undefined): Promise<Outcome> {
  const held = quoting.quote;
  if (!stampUri || !held?.quotedStatusId || held.state !== 'pending' || quoting.accountId !== quotingAuthor.id) return 'ignored';
  if (!held.quotedAccountId || held.quotedAccountId === quoting.accountId) return 'ignored';
  const [quote, quoted, quotedAuthor] = await Promise.all([quoteOf(held.quotedStatusId, quoting.id), statusById(held.quotedStatusId), accountById(held.quotedAccountId)]);
  if (!quote || quote.state !== 'pending' || !quoted || !quotedAuthor?.domain || quoted.accountId !== quotedAuthor.id) return 'ignored';
  if (!(await stampApproves(stampUri, quoting, quoted, quotedAuthor))) return 'ignored';
  // Remembered first: once accepted, the quoted author's Delete of the stamp must find the quote.
  await rememberApprovalStamp(quote, stampUri);
  if ((await changeQuoteState(quote, 'accepted', { approvalUri: stampUri })) !== 'changed') return 'ignored';
  await moveQuotesCount(quote.quotedStatusId, 1);
  return 'applied';
}
