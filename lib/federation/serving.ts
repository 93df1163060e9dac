// How the ActivityPub documents are served over HTTP: content negotiation of the
// URLs that serve both people and servers (`/@user`, `/users/user`, their
// statuses), the one shape of an ActivityPub answer, and who signed a request.
import { z } from 'zod';
import { json, Reply, type Ctx } from '../http';
import { signedRequester, type Requester } from './documents';
import { requireAuthorizedFetch } from './domain_gate';
import { ACTIVITY_JSON } from './urls';

/** Media types a server asks for an ActivityPub document with (Rails maps plain JSON to the same answer in Mastodon). */
const ACTIVITY_TYPES = new Set(['application/activity+json', 'application/ld+json', 'application/json']);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** The highest quality the Accept header gives any of `types`, named exactly (wildcards decide nothing here). */
function qualityOf(accept: string, types: Set<string>): number {
  let best = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (!types.has(type)) continue;
    const q = params.find((p) => p.startsWith('q='));
    const quality = q ? Number.parseFloat(q.slice(2)) : 1;
    if (Number.isFinite(quality) && quality > best) best = quality;
  }
  return best;
}

/**
 * What the client asked for: an ActivityPub document or a web page. A header that
 * names neither (none at all, `*\/*`) or both equally gets `fallback`: the page for
 * profile URLs, the document for ActivityPub ids.
 */
export function negotiate(accept: string | undefined, fallback: 'activity' | 'html'): 'activity' | 'html' {
  if (!accept) return fallback;
  const activity = qualityOf(accept, ACTIVITY_TYPES);
  const html = qualityOf(accept, HTML_TYPES);
  if (activity === html) return fallback;
  return activity > html ? 'activity' : 'html';
}

export const ACTIVITY_CONTENT_TYPE = `${ACTIVITY_JSON}; charset=utf-8`;

/** Caches may keep a document anyone may read for three minutes; one served to a signed request, not at all. */
export const PUBLIC_DOCUMENT_CACHE = 'public, max-age=180';
export const PRIVATE_DOCUMENT_CACHE = 'private, no-store';

/** An ActivityPub document; `open` when anyone may read it. Vary: Accept, since its URL may also answer a web page. */
export const activityReply = (document: unknown, open = true): Reply =>
  json(document, 200, {
    'Content-Type': ACTIVITY_CONTENT_TYPE,
    'Cache-Control': open ? PUBLIC_DOCUMENT_CACHE : PRIVATE_DOCUMENT_CACHE,
    Vary: 'Accept',
  });

/** A browser that asked for an ActivityPub id goes to the page of the same thing, as Mastodon sends it. */
export const toWebPage = (location: string): Reply =>
  new Reply(302, '', { Location: location, 'Cache-Control': 'no-store', Vary: 'Accept' }, [], 'raw');

/** The actor that signed this request, looked up only when a document needs it (lib/federation/documents.ts). */
export function requesterOf(ctx: Ctx): Requester {
  const query = ctx.event.rawQueryString;
  return signedRequester({
    method: ctx.event.requestContext?.http?.method ?? 'GET',
    path: query ? `${ctx.path}?${query}` : ctx.path,
    headers: ctx.headers,
  });
}

/** With authorized fetch on, 401 {"error"} unless the request is signed by an actor of a server not suspended (./domain_gate.ts). */
export const authorizedFetch = (ctx: Ctx): Promise<void> => requireAuthorizedFetch({ headers: ctx.headers, path: ctx.path }, requesterOf(ctx));

/**
 * The `@username` segment of a profile or status URL, as the username (undefined for a
 * segment without the `@`: the route catches every one-segment path no other route has).
 */
export const handleParam = z.string().transform((segment) => (segment.startsWith('@') && segment.length > 1 ? segment.slice(1) : undefined));
