// Remote actors as the rest of the code imports them: ./actor_store.ts, each save of an
// actor followed by asking for its featured collection (its pinned posts) to be read in the
// background (./featured_requests.ts), as Mastodon's account processing does. Signature checks
// and the lookups that never fetch use the store without it (lookupKey, withoutPins).
import { actorStore } from './actor_store';
import { requestFeaturedRead } from './featured_requests';

export { ACTOR_TYPES, InvalidActor, isLocalDomain, lookupKey, parseActor, REFETCH_AT_MOST_EVERY_MS, REFRESH_AFTER_MS, type ParsedActor } from './actor_store';

/**
 * saveActorDocument: creates or updates the remote account of an actor document; accountByActorUri: the account of
 * an actor URI, fetched and stored when unknown or stale; resolveAcct: `username@domain` found (WebFinger, then the
 * actor) and stored (./actor_store.ts tells each in full). Every save asks for the account's featured collection to be read.
 * (`@__PURE__`: as ./actor_store.ts's withoutPins, left out of a bundle that uses none of them.)
 */
export const { saveActorDocument, accountByActorUri, resolveAcct } = /* @__PURE__ */ actorStore(requestFeaturedRead);
