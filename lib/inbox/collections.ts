// Collections of accounts received from another server (Mastodon 4.6's ProcessFeaturedCollectionService and
// ProcessFeaturedItemService, reached from Add, Update and Remove): a FeaturedCollection of the actor, added to its
// featuredCollections or updated, is stored as a remote collection of its account (the API shows it as it shows
// ours); an Add or Remove of a FeaturedItem targets one of those; a Remove naming the collection deletes it.
// Only the actor's own collections, on its own server, are touched. Bounded as Mastodon bounds them: the name to
// 256 characters, the description (sanitised HTML) to 2048 bytes, the items to our own limit, and no more
// collections per account than a local account may have.
//
// Whom an item features: Mastodon asks the featured account's server (a FeatureRequest answered by a
// FeatureAuthorization the item then names: ./feature_request.ts and lib/federation/collections_consent.ts). An
// item of an account on the collection owner's own server is kept as that server sent it (it applied its users'
// feature policy); an item of one of our accounts only with our authorization of it (an accepted item of ours in
// this very collection, no fetch); an item of a third server's account only with a `featureAuthorization` on that
// server which, fetched, names this collection and that account (VerifyFeaturedItemService), once per item: an
// item kept with the same authorization is not fetched again. Anything else is left out, as Mastodon shows none.
import type { Account } from '../db/accounts';
import { authorizationVerifies, authorizedItem, parseFeatureAuthorizationUri } from '../federation/collections_consent';
import {
  collectionsByIds,
  createCollection,
  deleteCollection,
  isLive,
  ownedCollectionIds,
  saveCollection,
  type Collection,
  type CollectionEntry,
} from '../db/collections';
import { nowIso } from '../db/table';
import { MAX_COLLECTIONS, MAX_ITEMS } from '../collections';
import { accountByActorUri } from '../federation/actors';
import { FetchFailed, fetchObject } from '../federation/fetch';
import { boundedRemoteHtml, htmlToText } from '../federation/sanitize';
import { isLocalUrl } from '../federation/urls';
import { asArray, canonicalId, dateOf, idOf, objectOf, sameHost, typeOf, type ApDocument } from '../federation/vocab';
import { newId } from '../ids';
import { log } from '../log';
import { isSuspended } from '../policy/sanctions';
import { hashtagName } from '../tags/featured';
import { isLanguageCode } from '../text/languages';
import { localAccountAt, type Outcome, type Received } from './received';

/** Collection::NAME_LENGTH_HARD_LIMIT and DESCRIPTION_LENGTH_HARD_LIMIT. */
export const REMOTE_NAME_MAX = 256;
export const REMOTE_DESCRIPTION_MAX_BYTES = 2048;

/** The actor's stored collections (a few: at most MAX_COLLECTIONS): one Query and one BatchGet. */
export async function collectionsOfActor(actor: Account): Promise<Collection[]> {
  const owned = await ownedCollectionIds(actor.id);
  return owned.length === 0 ? [] : collectionsByIds(owned.map((c) => c.collectionId));
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The fields a FeaturedCollection document gives (ProcessFeaturedCollectionService#collection_attributes). */
function fieldsOf(doc: ApDocument) {
  const map = objectOf(doc.summaryMap);
  const [mapLanguage, mapText] = map ? Object.entries(map).find(([, v]) => typeof v === 'string') ?? [] : [];
  const summary = stringOf(mapText) ?? stringOf(doc.summary) ?? '';
  const language = mapLanguage && isLanguageCode(mapLanguage) ? mapLanguage.toLowerCase() : null;
  const topic = stringOf(objectOf(doc.topic)?.name);
  const description = boundedRemoteHtml(summary, REMOTE_DESCRIPTION_MAX_BYTES);
  return {
    name: Array.from(htmlToText(stringOf(doc.name) ?? '')).slice(0, REMOTE_NAME_MAX).join(''),
    description: description === '' ? null : description,
    language,
    sensitive: doc.sensitive === true,
    discoverable: doc.discoverable === true,
    tagName: topic ? hashtagName(topic) ?? null : null,
  };
}

/** An item kept: its FeaturedItem id, its account, the authorization it stands on, and our item it is (one of ours, accepted before). */
type Featured = { uri: string; account: Account; approvalUri: string | null; ours?: string };

/** The account an item features, if this item may be kept (see the top of this file); undefined otherwise. */
async function featuredAccountOf(item: ApDocument, collectionUri: string, owner: Account & { uri: string }, stored?: Collection): Promise<Featured | undefined> {
  const uri = canonicalId(item.id);
  const objectUri = idOf(item.featuredObject);
  if (!uri || !objectUri || !sameHost(uri, collectionUri)) return undefined;
  const approval = idOf(item.featureAuthorization);
  if (isLocalUrl(objectUri)) {
    const account = await localAccountAt(objectUri);
    const parsed = parseFeatureAuthorizationUri(approval);
    if (!account || !stored || parsed?.username !== account.username || parsed.collectionId !== stored.id) return undefined;
    const found = await authorizedItem(account, parsed.collectionId, parsed.itemId);
    return found && found.collectionUri === collectionUri && found.collection.accountId === owner.id ? { uri, account, approvalUri: null, ours: found.entry.id } : undefined;
  }
  let approvalUri: string | null = null;
  let known: CollectionEntry | undefined;
  if (!sameHost(objectUri, owner.uri)) {
    if (!approval || !sameHost(approval, objectUri)) return undefined;
    // Verified when it was kept: the same item, authorization and account are not fetched again.
    known = stored?.items.find((e) => e.uri === uri && e.approvalUri === approval && e.state === 'accepted');
    if (!known && !(await authorizationVerifies(approval, collectionUri, objectUri))) return undefined;
    approvalUri = approval;
  }
  try {
    const account = await accountByActorUri(objectUri);
    if (!account || isSuspended(account) || account.uri !== objectUri || (known && known.accountId !== account.id)) return undefined;
    return { uri, account, approvalUri };
  } catch (err) {
    if (err instanceof FetchFailed) return undefined;
    throw err;
  }
}

const receivedEntry = (f: Featured, position: number, now: string): CollectionEntry => ({
  id: newId(),
  accountId: f.account.id,
  state: 'accepted',
  position,
  createdAt: now,
  uri: f.uri,
  approvalUri: f.approvalUri,
  activityUri: null,
});

/**
 * Our account's item of a FeatureRequest (the only items with one here) that a new listing keeps: accepted and not
 * listed yet, or revoked (as Mastodon keeps the row: a new request is then rejected, and it serves no authorization).
 */
const keptUnlisted = (e: CollectionEntry) => e.activityUri !== null && ((e.state === 'accepted' && e.uri === null) || e.state === 'revoked');

/** The FeaturedCollection itself: embedded, or fetched by its id (then it must still be the actor's). */
export async function collectionDocument(received: Received, object: unknown): Promise<ApDocument | undefined> {
  let doc = objectOf(object);
  if (!doc) {
    const uri = canonicalId(object);
    if (!uri || !sameHost(uri, received.actor.uri)) return undefined;
    try {
      doc = await fetchObject(uri);
    } catch (err) {
      if (err instanceof FetchFailed) return undefined;
      throw err;
    }
  }
  if (typeOf(doc) !== 'FeaturedCollection') return undefined;
  const uri = canonicalId(doc.id);
  const attributedTo = idOf(doc.attributedTo);
  if (!uri || !sameHost(uri, received.actor.uri) || (attributedTo !== undefined && attributedTo !== received.actor.uri)) return undefined;
  return doc;
}

/** Creates or replaces the actor's collection from its document (ProcessFeaturedCollectionService). */
export async function storeCollection(received: Received, doc: ApDocument): Promise<Outcome> {
  const uri = canonicalId(doc.id)!;
  const fields = fieldsOf(doc);
  const stored = (await collectionsOfActor(received.actor)).find((c) => c.uri === uri);
  const found: Featured[] = [];
  for (const raw of asArray(doc.orderedItems).slice(0, MAX_ITEMS)) {
    const item = objectOf(raw);
    const featured = item ? await featuredAccountOf(item, uri, received.actor, stored) : undefined;
    if (featured && !found.some((f) => f.account.id === featured.account.id)) found.push(featured);
  }
  const now = nowIso();
  for (let attempt = 0; attempt < 8; attempt++) {
    const existing = (await collectionsOfActor(received.actor)).find((c) => c.uri === uri);
    if (!existing) {
      // Our accounts' items stand on an accepted item of ours in the stored collection: none here yet.
      const items: CollectionEntry[] = found.filter((f) => !f.ours).map((f, i) => receivedEntry(f, i + 1, now));
      const collection: Collection = {
        id: newId(),
        accountId: received.actor.id,
        ...fields,
        local: false,
        uri,
        items,
        nextPosition: items.length + 1,
        version: 0,
        createdAt: dateOf(doc.published)?.toISOString() ?? now,
        updatedAt: dateOf(doc.updated)?.toISOString() ?? now,
      };
      const created = await createCollection(collection, MAX_COLLECTIONS);
      if ('failed' in created) {
        log.info('remote collection refused: its account has as many as a local one may', { uri, accountId: received.actor.id });
        return 'ignored';
      }
      return 'applied';
    }
    // Items that stay keep their id (what the API named them by); the others go, the new ones come.
    const listed = found.flatMap((f, i): CollectionEntry[] => {
      if (f.ours) {
        const ours = existing.items.find((e) => e.id === f.ours && e.state === 'accepted');
        return ours ? [{ ...ours, uri: f.uri, position: i + 1 }] : [];
      }
      const kept = existing.items.find((e) => e.uri === f.uri && e.accountId === f.account.id);
      return [kept ? { ...kept, approvalUri: f.approvalUri, position: i + 1 } : receivedEntry(f, i + 1, now)];
    });
    const waiting = existing.items.filter((e) => keptUnlisted(e) && !listed.some((x) => x.id === e.id));
    const items = [...listed, ...waiting.map((e, i) => ({ ...e, position: listed.length + i + 1 }))];
    const added = items.filter((e) => !existing.items.some((x) => x.id === e.id));
    const removed = existing.items.filter((e) => isLive(e) && !items.some((x) => x.id === e.id));
    const next: Collection = { ...existing, ...fields, items, nextPosition: items.length + 1, updatedAt: dateOf(doc.updated)?.toISOString() ?? now };
    if (await saveCollection(existing, next, { added, removed })) return 'applied';
  }
  return 'ignored';
}

/** Add(FeaturedCollection) to the actor's collections, or Add(FeaturedItem) to one of its collections; undefined: not ours to handle. */
export async function addToCollections(received: Received): Promise<Outcome | undefined> {
  const object = objectOf(received.activity.object);
  const type = typeOf(object);
  if (type === 'FeaturedCollection') {
    const doc = await collectionDocument(received, object);
    return doc ? storeCollection(received, doc) : 'ignored';
  }
  if (type !== 'FeaturedItem' || !object) return undefined;
  const target = idOf(received.activity.target);
  for (let attempt = 0; attempt < 8; attempt++) {
    const collection = (await collectionsOfActor(received.actor)).find((c) => c.uri !== null && c.uri === target);
    if (!collection?.uri) return 'ignored';
    const featured = await featuredAccountOf(object, collection.uri, received.actor, collection);
    if (!featured) return 'ignored';
    if (featured.ours) {
      // The owner lists the item our account accepted: it now has its FeaturedItem id.
      const ours = collection.items.find((e) => e.id === featured.ours);
      if (!ours || ours.uri === featured.uri) return 'ignored';
      const next: Collection = { ...collection, items: collection.items.map((e) => (e.id === ours.id ? { ...e, uri: featured.uri } : e)) };
      if (await saveCollection(collection, next)) return 'applied';
      continue;
    }
    if (collection.items.some((e) => e.uri === featured.uri || e.accountId === featured.account.id)) return 'ignored';
    if (collection.items.filter(isLive).length >= MAX_ITEMS) return 'ignored';
    const entry = receivedEntry(featured, collection.nextPosition, nowIso());
    const next: Collection = { ...collection, items: [...collection.items, entry], nextPosition: collection.nextPosition + 1 };
    if (await saveCollection(collection, next, { added: [entry] })) return 'applied';
  }
  return 'ignored';
}

/** Remove of one of the actor's collections, or of an item from one; undefined: it names none of them. */
export async function removeFromCollections(received: Received): Promise<Outcome | undefined> {
  const object = idOf(received.activity.object);
  const target = idOf(received.activity.target);
  if (!object || !sameHost(object, received.actor.uri)) return undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const collections = await collectionsOfActor(received.actor);
    const gone = collections.find((c) => c.uri === object);
    if (gone) {
      if (await deleteCollection(gone)) return 'applied';
      continue;
    }
    const from = collections.find((c) => c.uri !== null && c.uri === target);
    if (!from) return undefined;
    const entry = from.items.find((e) => e.uri === object);
    if (!entry) return 'ignored';
    const next: Collection = { ...from, items: from.items.filter((e) => e.id !== entry.id) };
    if (await saveCollection(from, next, { removed: isLive(entry) ? [entry] : [] })) return 'applied';
  }
  return 'ignored';
}

/** Update(FeaturedCollection): the actor's collection as it now is (stored if it was not). */
export async function updateCollection(received: Received, object: ApDocument): Promise<Outcome> {
  const doc = await collectionDocument(received, object);
  return doc ? storeCollection(received, doc) : 'ignored';
}
