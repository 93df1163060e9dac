// Consent to be featured, received (Mastodon 4.6's ActivityPub::Activity::FeatureRequest, the feature request
// cases of Accept and Reject, and the Delete of a FeatureAuthorization): a remote account asks to feature one of
// our accounts in its collection, and a remote account we asked to feature answers, or withdraws its consent.
import { accountById, type Account } from '../db/accounts';
import { collectionById, collectionsByIds, featuredInEntries, isLive, saveCollection, type Collection, type CollectionEntry } from '../db/collections';
import { nowIso } from '../db/table';
import { MAX_ITEMS, mayFeature } from '../collections';
import { sendCollectionChange } from '../federation/collections';
import { authorizationVerifies, parseFeatureRequestUri, sendFeatureAnswer } from '../federation/collections_consent';
import { apUrls, isLocalUrl } from '../federation/urls';
import { asArray, idOf, objectOf, sameHost, typeOf } from '../federation/vocab';
import { newId } from '../ids';
import { collectionDocument, collectionsOfActor, storeCollection } from './collections';
import { localAccountAt, type Outcome, type Received } from './received';

/** How many of the collections an account is in a withdrawn authorization is looked for among. */
export const REVOKE_SCAN_LIMIT = 100;

/**
 * The actor's collection a FeatureRequest names as its `instrument`: stored, or fetched by its id from the actor's
 * server and stored (FetchRemoteFeaturedCollectionService), then it must be the actor's.
 */
async function requestingCollection(received: Received, uri: string): Promise<Collection | undefined> {
  const stored = (await collectionsOfActor(received.actor)).find((c) => c.uri === uri);
  if (stored) return stored;
  const doc = await collectionDocument(received, uri);
  if (!doc || idOf(doc) !== uri || (await storeCollection(received, doc)) !== 'applied') return undefined;
  return (await collectionsOfActor(received.actor)).find((c) => c.uri === uri);
}

/**
 * The accepted item of `featured` in the collection, made or found (a redelivery finds it); undefined when none
 * may be: the collection is full, or the account withdrew its consent to this collection before.
 */
async function acceptedItem(collection: Collection, featured: Account, requestId: string): Promise<CollectionEntry | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = attempt === 0 ? collection : await collectionById(collection.id, true);
    if (!current) return undefined;
    const existing = current.items.find((e) => e.accountId === featured.id);
    if (existing?.state === 'accepted') return existing;
    if (existing?.state === 'revoked') return undefined;
    const live = existing !== undefined && isLive(existing);
    if (!live && current.items.filter(isLive).length >= MAX_ITEMS) return undefined;
    const entry: CollectionEntry = existing
      ? { ...existing, state: 'accepted', activityUri: requestId }
      : { id: newId(), accountId: featured.id, state: 'accepted', position: current.nextPosition, createdAt: nowIso(), uri: null, approvalUri: null, activityUri: requestId };
    const next: Collection = existing
      ? { ...current, items: current.items.map((e) => (e.id === entry.id ? entry : e)) }
      : { ...current, items: [...current.items, entry], nextPosition: current.nextPosition + 1 };
    if (await saveCollection(current, next, { added: live ? [] : [entry] })) return entry;
  }
  return undefined;
}

/**
 * FeatureRequest: the actor asks to feature one of our accounts in one of its collections. Decided by that
 * account's policy (AccountPolicy#feature?: discoverable, and locked only for a follower, neither blocking the
 * other): accepted, the item is stored accepted and the Accept names our FeatureAuthorization of it; else the
 * Reject is sent and nothing is stored.
 */
export async function featureRequest(received: Received): Promise<Outcome> {
  const featured = await localAccountAt(idOf(received.activity.object));
  const instrument = idOf(received.activity.instrument);
  if (!featured || !instrument || !sameHost(instrument, received.actor.uri)) return 'ignored';
  const collection = await requestingCollection(received, instrument);
  if (!collection) return 'ignored';
  const entry = (await mayFeature(received.actor, featured)) ? await acceptedItem(collection, featured, received.id) : undefined;
  await sendFeatureAnswer(featured, received.actor, received.id, entry ? { accepted: { collectionId: collection.id, itemId: entry.id } } : { rejected: newId() });
  return 'applied';
}

// ---- answers to our FeatureRequest ----

/** Is the Accept or Reject about a FeatureRequest (embedded, or one of our FeatureRequest ids)? */
export function answersFeatureRequest(received: Received): boolean {
  const embedded = objectOf(received.activity.object);
  if (embedded && typeOf(embedded) === 'FeatureRequest') return true;
  return parseFeatureRequestUri(idOf(received.activity.object)) !== undefined;
}

/** Our item the answer is about: in our collection, of the actor's account, asked by the very request it names. */
async function answeredItem(received: Received): Promise<{ collection: Collection; owner: Account; entry: CollectionEntry } | undefined> {
  const requestId = idOf(received.activity.object);
  const parsed = parseFeatureRequestUri(requestId);
  if (!parsed) return undefined;
  const collection = await collectionById(parsed.collectionId, true);
  if (!collection?.local) return undefined;
  const owner = await accountById(collection.accountId);
  const entry = collection.items.find((e) => e.id === parsed.itemId);
  if (!owner || owner.username !== parsed.username || !entry || entry.accountId !== received.actor.id || entry.activityUri !== requestId) return undefined;
  return { collection, owner, entry };
}

/**
 * Accept of our FeatureRequest: the item is accepted once the authorization its `result` names, on the actor's
 * server, is fetched and names our collection and the actor; then the owner's followers are sent its Add.
 */
export async function featureAccepted(received: Received): Promise<Outcome> {
  const approval = idOf(asArray(received.activity.result)[0]);
  if (!approval || isLocalUrl(approval) || !sameHost(approval, received.actor.uri)) return 'ignored';
  const first = await answeredItem(received);
  if (!first || first.entry.state !== 'pending') return 'ignored';
  const collectionUri = first.collection.uri ?? apUrls.collection(first.owner.username, first.collection.id);
  if (!(await authorizationVerifies(approval, collectionUri, received.actor.uri))) return 'ignored';
  for (let attempt = 0; attempt < 8; attempt++) {
    const found = attempt === 0 ? first : await answeredItem(received);
    if (!found || found.entry.state !== 'pending') return 'ignored';
    const entry: CollectionEntry = { ...found.entry, state: 'accepted', approvalUri: approval };
    const next: Collection = { ...found.collection, items: found.collection.items.map((e) => (e.id === entry.id ? entry : e)) };
    if (await saveCollection(found.collection, next)) {
      await sendCollectionChange(found.owner, { kind: 'itemAdded', collection: next, entry });
      return 'applied';
    }
  }
  return 'ignored';
}

/** Takes our item out (a Reject of the request, or of the consent given): its Remove goes out if it was shown. */
async function dropItem(found: { collection: Collection; owner: Account; entry: CollectionEntry }, lookAgain: () => Promise<{ collection: Collection; owner: Account; entry: CollectionEntry } | undefined>, state?: 'revoked'): Promise<Outcome> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = attempt === 0 ? found : await lookAgain();
    if (!current || !isLive(current.entry)) return 'ignored';
    const { collection, entry } = current;
    const items = state ? collection.items.map((e) => (e.id === entry.id ? { ...e, state } : e)) : collection.items.filter((e) => e.id !== entry.id);
    const next: Collection = { ...collection, items };
    if (await saveCollection(collection, next, { removed: [entry] })) {
      if (entry.state === 'accepted') await sendCollectionChange(current.owner, { kind: 'itemRemoved', collection: next, entry });
      return 'applied';
    }
  }
  return 'ignored';
}

/** Reject of our FeatureRequest: the item goes (pending, or accepted before). */
export async function featureRejected(received: Received): Promise<Outcome> {
  const found = await answeredItem(received);
  return found ? dropItem(found, () => answeredItem(received)) : 'ignored';
}

/**
 * Delete of a FeatureAuthorization (DeleteFeatureAuthorizationSerializer embeds it): the actor withdraws its
 * consent to be in one of our collections; the item becomes revoked. Looked for among the first REVOKE_SCAN_LIMIT
 * collections the actor is in (one Query, one BatchGet). Undefined when it is no such Delete, for the caller's
 * other cases.
 */
export async function featureAuthorizationDeleted(received: Received): Promise<Outcome | undefined> {
  const object = objectOf(received.activity.object);
  if (!object || typeOf(object) !== 'FeatureAuthorization') return undefined;
  const approval = idOf(object);
  if (!approval || !sameHost(approval, received.actor.uri)) return 'ignored';
  const find = async () => {
    const { entries } = await featuredInEntries(received.actor.id, 0, REVOKE_SCAN_LIMIT);
    const collections = await collectionsByIds(entries.map((e) => e.collectionId));
    for (const collection of collections) {
      const entry = collection.local ? collection.items.find((e) => e.accountId === received.actor.id && e.approvalUri === approval) : undefined;
      const owner = entry ? await accountById(collection.accountId) : undefined;
      if (entry && owner) return { collection, owner, entry };
    }
    return undefined;
  };
  const found = await find();
  return found ? dropItem(found, find, 'revoked') : 'ignored';
}
