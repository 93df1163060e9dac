// The ids of quote approval activities and stamps we mint (FEP-044f), apart from their documents so that the
// Note renderer and the quote activities both name them without importing each other.
import { apUrls } from './urls';

/**
 * The id of the QuoteRequest a local status's quote sends: under its author, named by the quoting status, so that
 * an Accept naming it by id alone leads back to the quote (one request per quoting status).
 */
export const quoteRequestId = (username: string, quotingStatusId: string) => `${apUrls.actor(username)}/quote_requests/${quotingStatusId}`;

/** The quoting status a QuoteRequest id of ours names, and its author's username; undefined for any other id. */
export function ourQuoteRequest(id: string | undefined): { username: string; statusId: string } | undefined {
  const prefix = apUrls.actor('');
  if (!id?.startsWith(prefix)) return undefined;
  const match = /^([A-Za-z0-9_]+)\/quote_requests\/(\d{1,20})$/.exec(id.slice(prefix.length));
  return match ? { username: match[1]!, statusId: match[2]! } : undefined;
}

/** The stamp our account gives a quote of its status (Mastodon's approval_uri_for): under the quoted author, named by the quoting status. */
export const quoteAuthorizationId = (quotedUsername: string, quotingStatusId: string) => `${apUrls.actor(quotedUsername)}/quote_authorizations/${quotingStatusId}`;
