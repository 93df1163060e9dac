// Redirect URIs of the authorization flow: matching the registered ones, and
// building the redirect back to the client.
import { OOB_URI, isValidRedirectUri } from '../apps';

const LOOPBACK = new Set(['127.0.0.1', '[::1]']);

const parse = (uri: string): URL | undefined => {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
};

/**
 * Simple string comparison (RFC 6749 section 3.1.2.3), except that the port of
 * a loopback IP redirect may vary at run time (RFC 8252 section 7.3), as Doorkeeper allows.
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  const a = parse(requested);
  const b = parse(registered);
  if (!a || !b || !LOOPBACK.has(a.hostname) || !LOOPBACK.has(b.hostname)) return false;
  return a.protocol === b.protocol && a.hostname === b.hostname && a.username === b.username &&
    a.password === b.password && a.pathname === b.pathname && a.search === b.search && a.hash === b.hash;
}

export const isRegisteredRedirect = (requested: string, registered: string[]): boolean =>
  isValidRedirectUri(requested) && registered.some((uri) => redirectUriMatches(requested, uri));

export const isOob = (uri: string) => uri === OOB_URI;

/** The redirect URI with response parameters added to its query (blank ones left out). */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The CSP `form-action` source that lets a form on our page end in a redirect to
 * the client (browsers check form-action on the redirect after a POST too).
 */
export function formActionSource(uri: string): string | undefined {
  const url = parse(uri);
  if (!url || isOob(uri)) return undefined;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}
