// Remote actors as the rest of the code imports them: ./actor_store.ts, each save of an
// actor followed by reading its featured collection (./featured.ts: its pinned posts), as
// Mastodon's account processing does. Signature checks and the lookups that never fetch use
// the store without it (lookupKey, withoutPins), and so do not bundle the Notes it stores.
import type { Account } from '../db/accounts';
import { log } from '../log';
import { actorStore } from './actor_store';
import { syncFeatured } from './featured';

export { ACTOR_TYPES, InvalidActor, isLocalDomain, lookupKey, parseActor, REFETCH_AT_MOST_EVERY_MS, REFRESH_AFTER_MS, type ParsedActor } from './actor_store';

/** The saved account, its pinned posts read from its featured collection first; pins are not worth failing the save. */
async function withPins(account: Account): Promise<Account> {
  await syncFeatured(account).catch((err: unknown) => log.error('reading a featured collection failed', { accountId: account.id, err }));
  return account;
}

/**
 * saveActorDocument: creates or updates the remote account of an actor document; accountByActorUri: the account of
 * an actor URI, fetched and stored when unknown or stale; resolveAcct: `username@domain` found (WebFinger, then the
 * actor) and stored (./actor_store.ts tells each in full). Every save reads the account's featured collection.
 * (`@__PURE__`: as ./actor_store.ts's withoutPins, left out of a bundle that uses none of them.)
 */
export const { saveActorDocument, accountByActorUri, resolveAcct } = /* @__PURE__ */ actorStore(withPins);
