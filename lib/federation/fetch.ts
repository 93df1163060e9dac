// Outbound requests to other servers: every one passes the address guard at
// connect time, is signed, bounded in time and size.
// OWNER: helper C. Signatures below are the contract other modules call.
import type { Signer } from './signatures';

export class FetchFailed extends Error {
  constructor(readonly url: string, readonly reason: string, readonly status?: number) {
    super(`${url}: ${reason}`);
    this.name = 'FetchFailed';
  }
}

/**
 * GET an ActivityPub document (Accept: application/activity+json), signed by `signer`
 * (the instance actor when omitted), 10 s timeout, at most 1 MB; a JSON object or FetchFailed.
 */
export async function fetchObject(_url: string, _opts: { signer?: Signer } = {}): Promise<Record<string, unknown>> {
  throw new Error('not built yet');
}

/** POST an activity to an inbox, signed by `signer`; resolves with the HTTP status, throws FetchFailed on network errors. */
export async function postActivity(_inbox: string, _activity: Record<string, unknown>, _signer: Signer): Promise<number> {
  throw new Error('not built yet');
}
