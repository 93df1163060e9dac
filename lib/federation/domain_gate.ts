// The operator's controls at the door of our ActivityPub endpoints: a request
// signed by a key of a suspended server (or, in limited federation mode, of a
// server not allowed) is refused before that key is fetched or anything else is
// read (Mastodon answers 403 to a suspended domain's inbox POSTs), and with
// authorized fetch on (Mastodon's AUTHORIZED_FETCH, "secure mode", which limited
// federation mode implies) the documents are served only to a request signed by
// an actor of a server we federate with.
import { instanceSettings } from '../db/instance';
import { forbidden, unauthorized } from '../errors';
import { log } from '../log';
import { federationRefusal, federationRefusalOfUrl, type FederationRefusal } from '../policy/instance_domains';
import { parseSignatureHeader } from './signatures';

/** The keyId a request's Signature header names, if it has one that parses. */
export function signingKeyId(headers: Record<string, string | undefined>): string | undefined {
  const header = headers.signature;
  return header ? parseSignatureHeader(header)?.keyId : undefined;
}

const REFUSALS: Record<FederationRefusal, string> = {
  suspended: 'The server is suspended by this instance',
  'not-allowed': 'This instance federates only with the servers it allows',
};

/** 403 for a request signed with a key on a server we do not federate with: checked before the key is looked up. */
export async function refuseSuspendedSigner(headers: Record<string, string | undefined>, path: string): Promise<void> {
  const keyId = signingKeyId(headers);
  const refusal = keyId ? await federationRefusalOfUrl(keyId) : undefined;
  if (refusal) {
    log.info('request refused: server not federated with', { path, keyId, refusal });
    throw forbidden(REFUSALS[refusal]);
  }
}

/** 403 for a verified signer whose actor lives on a server we do not federate with (a key may be served from elsewhere than its actor). */
export async function refuseSuspendedActor(actorUri: string, path: string): Promise<void> {
  const refusal = await federationRefusalOfUrl(actorUri);
  if (refusal) {
    log.info('request refused: server not federated with', { path, actor: actorUri, refusal });
    throw forbidden(REFUSALS[refusal]);
  }
}

/** Is authorized fetch on (the operator's `authorized-fetch` setting, or limited federation mode, which implies it)? */
export const authorizedFetchOn = async (): Promise<boolean> => {
  const settings = await instanceSettings();
  return settings.authorizedFetch || settings.limitedFederation;
};

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
  const refusal = await federationRefusal(actor.domain);
  if (refusal) throw forbidden(REFUSALS[refusal]);
}
