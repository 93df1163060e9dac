// Remote actors: fetched, parsed (the variants real peers send), stored as remote
// accounts, refreshed when older than a day.
// OWNER: helper C. Signatures below are the contract other modules call.
import type { Account } from '../db/accounts';
import type { KeyLookup } from './signatures';

/**
 * The account of an actor URI: a local account for one of our URLs, a stored remote
 * account, or (unless `fetch: false`) fetched and stored now; `refresh` refetches a stored one.
 */
export async function accountByActorUri(_uri: string, _opts: { fetch?: boolean; refresh?: boolean } = {}): Promise<Account | undefined> {
  throw new Error('not built yet');
}

/** Finds (WebFinger, then the actor) and stores `username@domain`; undefined when it does not exist. */
export async function resolveAcct(_username: string, _domain: string): Promise<Account | undefined> {
  throw new Error('not built yet');
}

/** The KeyLookup verifyRequest uses: the key's actor fetched (and cached as its account), refetched on `refresh`. */
export const lookupKey: KeyLookup = async () => {
  throw new Error('not built yet');
};
