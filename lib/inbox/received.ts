// What every handler of a received activity gets, and answers. The activity has
// passed the checks of ./index.ts: its actor is the account that signed it, its
// id is on the actor's server, and it has not been processed before.
import { accountByUsername, type Account } from '../db/accounts';
import { isRemoteAccount } from '../policy/federation';
import { isVisible } from '../policy/accounts';
import { parseLocalUrl } from '../federation/urls';
import { sameHost, type ApDocument } from '../federation/vocab';

export type Received = {
  /** The activity's id (the key of its at-most-once marker). */
  id: string;
  /** Its type, without an `as:` prefix. */
  type: string;
  /** The remote account of its actor, which signed it. */
  actor: Account & { uri: string };
  activity: ApDocument;
};

/**
 * What handling did: `applied` (its effects are committed: a redelivery is a replay), `ignored` (nothing to do:
 * nothing is remembered either), `more` (a long removal stopped at its bound: run the activity again).
 */
export type Outcome = 'applied' | 'ignored' | 'more';

/** One of our accounts, by its actor URL; undefined for anyone else's, and for an account others may not see. */
export async function localAccountAt(uri: string | undefined): Promise<Account | undefined> {
  const target = uri ? parseLocalUrl(uri) : undefined;
  if (target?.kind !== 'actor') return undefined;
  const account = await accountByUsername(target.username);
  return account && !isRemoteAccount(account) && isVisible(account) ? account : undefined;
}

/** Only the actor's own server may create, update or delete an object (Mastodon's invalid_origin?). */
export const onActorsServer = (received: Received, objectId: string | undefined): boolean => sameHost(objectId, received.actor.uri);
