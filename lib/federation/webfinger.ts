// WebFinger (RFC 7033), the client side: `user@domain` to the URI of its
// ActivityPub actor, as Mastodon finds remote accounts
// (https://docs.joinmastodon.org/spec/webfinger/). Unsigned, through the
// address guard, bounded like every outbound request (./fetch.ts).
import { FetchFailed, guardedGet, jsonObject } from './fetch';
import { isPrivateHost } from './guard';
import { asArray, httpUrl } from './vocab';

/** A JRD is a few links: far less than an ActivityPub document. */
const MAX_JRD_BYTES = 256 * 1024;

const isActivityPubType = (type: unknown): boolean =>
  typeof type === 'string' &&
  (type.startsWith('application/activity+json') || (type.startsWith('application/ld+json') && type.includes('https://www.w3.org/ns/activitystreams')));

/** `host` or `host:port`, lower-case; undefined when it is not one. */
export function normalizeDomain(domain: string): string | undefined {
  if (domain === '' || /[\s/?#@\\]/.test(domain)) return undefined;
  try {
    const url = new URL(`https://${domain}`);
    const host = url.host.toLowerCase();
    // new URL drops a default port (:443): compare without it.
    return host === domain.toLowerCase().replace(/:443$/, '') ? host : undefined;
  } catch {
    return undefined;
  }
}

/** A username as it may appear in `acct:`: no separators, no whitespace, bounded. */
export const isAcctUsername = (username: string): boolean => username.length > 0 && username.length <= 255 && !/[\s@/?#:%]/.test(username);

/**
 * The actor URI of `username@domain` (its `self` link with an ActivityPub type), or undefined
 * when the server says there is no such account. Throws FetchFailed when it cannot be asked
 * (network, refused address, a server error). `domain` may carry a port; plain http is used
 * only for hosts on loopback or private addresses where the stage allows them (./guard.ts).
 */
export async function webfinger(username: string, domain: string): Promise<string | undefined> {
  const host = normalizeDomain(domain);
  if (!host || !isAcctUsername(username)) return undefined;
  const scheme = (await isPrivateHost(new URL(`https://${host}`).hostname)) ? 'http' : 'https';
  const resource = `acct:${username}@${host}`;
  const url = `${scheme}://${host}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
  let body: Buffer;
  try {
    ({ body } = await guardedGet(url, { accept: 'application/jrd+json, application/json', maxBytes: MAX_JRD_BYTES }));
  } catch (err) {
    if (err instanceof FetchFailed && (err.status === 404 || err.status === 410)) return undefined;
    throw err;
  }
  const jrd = jsonObject(body);
  if (!jrd) throw new FetchFailed(url, 'is not a JSON object');
  for (const link of asArray(jrd.links)) {
    if (typeof link !== 'object' || link === null) continue;
    const { rel, type, href } = link as Record<string, unknown>;
    if (rel === 'self' && isActivityPubType(type) && httpUrl(href)) return httpUrl(href);
  }
  return undefined;
}
