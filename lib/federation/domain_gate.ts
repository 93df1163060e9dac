// The operator's controls at the door of our ActivityPub endpoints: a request
// signed by a key of a suspended server is refused before that key is fetched
// or anything else is read (Mastodon answers 403 to a suspended domain's
// inbox POSTs), and with authorized fetch on (Mastodon's AUTHORIZED_FETCH,
// "secure mode") the documents are served only to a request signed by an
// actor of a server that is not suspended.
import { instanceSettings } from '../db/instance';
import { forbidden, unauthorized } from '../errors';
import { log } from '../log';
import { isSuspendedDomain, isSuspendedUrl } from '../policy/instance_domains';
import { parseSignatureHeader } from './signatures';

/** The keyId a request's Signature header names, if it has one that parses. */
export function signingKeyId(headers: Record<string, string | undefined>): string | undefined {
  const header = headers.signature;
  return header ? parseSignatureHeader(header)?.keyId : undefined;
}

/** 403 for a request signed with a key on a suspended server: checked before the key is looked up. */
export async function refuseSuspendedSigner(headers: Record<string, string | undefined>, path: string): Promise<void> {
  const keyId = signingKeyId(headers);
  if (keyId && (await isSuspendedUrl(keyId))) {
    log.info('request refused: suspended server', { path, keyId });
    throw forbidden('The server is suspended by this instance');
  }
}

/** 403 for a verified signer whose actor lives on a suspended server (a key may be served from elsewhere than its actor). */
export async function refuseSuspendedActor(actorUri: string, path: string): Promise<void> {
  if (await isSuspendedUrl(actorUri)) {
    log.info('request refused: suspended server', { path, actor: actorUri });
    throw forbidden('The server is suspended by this instance');
  }
}

/** Is authorized fetch on (the operator's `authorized-fetch` setting)? */
export const authorizedFetchOn = async (): Promise<boolean> => (await instanceSettings()).authorizedFetch;

/**
 * With authorized fetch on, the document is served only to a request whose signature verifies, from an actor of a
 * server that is not suspended: 401 {"error"} otherwise (403 for a suspended server, before any key fetch).
 * `requester` verifies the signature (lib/federation/serving.ts requesterOf). Off: nothing is checked.
 */
export async function requireAuthorizedFetch(
  request: { headers: Record<string, string | undefined>; path: string },
  requester: () => Promise<{ domain: string | null } | undefined>,
): Promise<void> {
  if (!(await authorizedFetchOn())) return;
  if (!signingKeyId(request.headers)) throw unauthorized('Request not signed');
  await refuseSuspendedSigner(request.headers, request.path);
  const actor = await requester();
  if (!actor || actor.domain === null) throw unauthorized('The request signature could not be verified');
  if (await isSuspendedDomain(actor.domain)) throw forbidden('The server is suspended by this instance');
}
