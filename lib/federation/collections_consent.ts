// Consent to be featured in a collection across servers (Mastodon 4.6's FeatureRequest and FeatureAuthorization):
// the ids we mint for both, the FeatureAuthorization we serve for an item featuring one of our accounts, what
// goes out (our FeatureRequest to a remote account's server, our Accept or Reject of one received, the Delete of
// an authorization withdrawn), how a remote actor's `interactionPolicy.canFeature` reads, and the check of an
// authorization another server serves (fetched, as VerifyFeaturedItemService fetches it).
import type { Account } from '../db/accounts';
import { accountById } from '../db/accounts';
import { collectionById, type Collection, type CollectionEntry } from '../db/collections';
import { followEdge } from '../db/follows';
import { notFound } from '../errors';
import { isId } from '../ids';
import { actorUri } from './activities';
import { localAccountNamed } from './documents';
import { FetchFailed, fetchObject } from './fetch';
import { deliver, quietly } from './outbox';
import { DOCUMENT_CONTEXT, type ApObject } from './render';
import { AS_PUBLIC, apUrls, isLocalUrl } from './urls';
import { canonicalId, idOf, idsOf, isPublicCollection, objectOf, sameHost, typeOf } from './vocab';

/** The terms Mastodon's feature_requests and feature_authorizations context extensions add. */
export const CONSENT_CONTEXT = [
  ...DOCUMENT_CONTEXT,
  {
    FeatureRequest: 'toot:FeatureRequest',
    FeatureAuthorization: 'toot:FeatureAuthorization',
    featureAuthorization: { '@id': 'toot:featureAuthorization', '@type': '@id' },
    interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' },
    interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' },
  },
] as const;

// ---- the ids we mint ----

/**
 * Our FeatureAuthorization of an item featuring `username`: it names the collection and the item, so that serving
 * it (and checking one named in a received collection) is one read of the collection.
 */
export const featureAuthorizationUri = (username: string, collectionId: string, itemId: string) =>
  `${apUrls.actor(username)}/feature_authorizations/${collectionId}-${itemId}`;

/** The parts of one of our FeatureAuthorization ids, or undefined for anything else. */
export function parseFeatureAuthorizationUri(uri: string | undefined): { username: string; collectionId: string; itemId: string } | undefined {
  if (!uri || !isLocalUrl(uri)) return undefined;
  const { pathname, hash, search } = new URL(uri);
  const match = /^\/users\/([A-Za-z0-9_]+)\/feature_authorizations\/(\d{1,20})-(\d{1,20})$/.exec(pathname);
  if (!match || hash || search) return undefined;
  return { username: match[1]!, collectionId: match[2]!, itemId: match[3]! };
}

/** Our FeatureRequest for an item of our collection: the Accept or Reject names it, and leads back to the item. */
export const featureRequestUri = (ownerUsername: string, collectionId: string, itemId: string) =>
  `${apUrls.collection(ownerUsername, collectionId)}#feature_requests/${itemId}`;

export function parseFeatureRequestUri(uri: string | undefined): { username: string; collectionId: string; itemId: string } | undefined {
  if (!uri || !isLocalUrl(uri)) return undefined;
  const { pathname, hash, search } = new URL(uri);
  const path = /^\/users\/([A-Za-z0-9_]+)\/collections\/(\d{1,20})$/.exec(pathname);
  const item = /^#feature_requests\/(\d{1,20})$/.exec(hash);
  if (!path || !item || search) return undefined;
  return { username: path[1]!, collectionId: path[2]!, itemId: item[1]! };
}

// ---- what we serve ----

/** ActivityPub::FeatureAuthorizationSerializer: `featured` consents to be in the collection at `collectionUri`. */
export const featureAuthorizationOf = (featured: Pick<Account, 'username'>, collectionUri: string, collectionId: string, itemId: string): ApObject => ({
  id: featureAuthorizationUri(featured.username, collectionId, itemId),
  type: 'FeatureAuthorization',
  interactingObject: collectionUri,
  interactionTarget: apUrls.actor(featured.username),
});

/** A collection's ActivityPub id: a remote one's as received, ours as minted (or as minted before the record held it). */
async function collectionUriOf(c: Collection): Promise<string | undefined> {
  if (c.uri) return c.uri;
  if (!c.local) return undefined;
  const owner = await accountById(c.accountId);
  return owner ? apUrls.collection(owner.username, c.id) : undefined;
}

/** The accepted item of `featured` in a collection, by our authorization's parts; undefined once withdrawn or gone. */
export async function authorizedItem(featured: Pick<Account, 'id'>, collectionId: string, itemId: string): Promise<{ collection: Collection; entry: CollectionEntry; collectionUri: string } | undefined> {
  if (!isId(collectionId) || !isId(itemId)) return undefined;
  const collection = await collectionById(collectionId);
  const entry = collection?.items.find((e) => e.id === itemId);
  if (!collection || !entry || entry.accountId !== featured.id || entry.state !== 'accepted') return undefined;
  const collectionUri = await collectionUriOf(collection);
  return collectionUri ? { collection, entry, collectionUri } : undefined;
}

/** GET /users/:username/feature_authorizations/:id: 404 for an item not (or no more) accepted by that account. */
export async function featureAuthorizationDocument(username: string, id: string): Promise<ApObject> {
  const featured = await localAccountNamed(username);
  const match = /^(\d{1,20})-(\d{1,20})$/.exec(id);
  const found = match ? await authorizedItem(featured, match[1]!, match[2]!) : undefined;
  if (!found) throw notFound();
  return { '@context': CONSENT_CONTEXT, ...featureAuthorizationOf(featured, found.collectionUri, found.collection.id, found.entry.id) };
}

// ---- what goes out ----

/** ActivityPub::FeatureRequestWorker: our `owner` asks `target`'s server (its own inbox) to feature it. */
export async function sendFeatureRequest(owner: Account, collection: Collection, entry: CollectionEntry, target: Account): Promise<void> {
  await quietly('FeatureRequest', { collectionId: collection.id, itemId: entry.id }, async () => {
    if (!entry.activityUri || owner.domain !== null || target.domain === null) return;
    const activity = {
      '@context': CONSENT_CONTEXT,
      id: entry.activityUri,
      type: 'FeatureRequest',
      actor: actorUri(owner),
      object: target.uri,
      instrument: apUrls.collection(owner.username, collection.id),
    };
    await deliver(activity, [target.inboxUrl ?? undefined], owner);
  });
}

/**
 * AcceptFeatureRequestSerializer or RejectFeatureRequestSerializer: `featured` (ours) answers the remote owner's
 * FeatureRequest; an Accept names our authorization of `entry` as its result.
 */
export async function sendFeatureAnswer(featured: Account, owner: Account, requestId: string, answer: { accepted: { collectionId: string; itemId: string } } | { rejected: string }): Promise<void> {
  await quietly('FeatureRequest answer', { featuredId: featured.id, ownerId: owner.id }, async () => {
    const actor = actorUri(featured);
    const base = { '@context': CONSENT_CONTEXT, actor, to: owner.uri, object: requestId };
    const activity =
      'accepted' in answer
        ? { ...base, id: `${actor}#accepts/feature_requests/${answer.accepted.itemId}`, type: 'Accept', result: featureAuthorizationUri(featured.username, answer.accepted.collectionId, answer.accepted.itemId) }
        : { ...base, id: `${actor}#rejects/feature_requests/${answer.rejected}`, type: 'Reject' };
    await deliver(activity, [owner.inboxUrl ?? undefined], featured);
  });
}

/** DeleteFeatureAuthorizationSerializer: `featured` (ours) withdraws its consent; the remote owner's server is told. */
export async function sendAuthorizationDelete(featured: Account, owner: Account, collectionUri: string, collection: Pick<Collection, 'id'>, entry: Pick<CollectionEntry, 'id'>): Promise<void> {
  await quietly('Delete FeatureAuthorization', { featuredId: featured.id, collectionId: collection.id }, async () => {
    const authorization = featureAuthorizationOf(featured, collectionUri, collection.id, entry.id);
    const activity = { '@context': CONSENT_CONTEXT, id: `${authorization.id as string}#delete`, type: 'Delete', actor: actorUri(featured), to: [AS_PUBLIC], object: authorization };
    await deliver(activity, [owner.inboxUrl ?? undefined], featured);
  });
}

// ---- a remote actor's policy ----

/** Account#feature_policy_for_account's answers. */
export type FeaturePolicy = 'automatic' | 'manual' | 'missing' | 'unknown' | 'denied';

/** Who one approval list names, as Mastodon's InteractionPolicy bitmap reads it: public, followers, following, or something unsupported. */
function audiencesOf(list: unknown, actor: { uri: string; followers?: string; following?: string }) {
  const out = { public: false, followers: false, following: false, unsupported: false, any: false };
  for (const id of idsOf(list)) {
    if (isPublicCollection(id)) out.public = true;
    else if (actor.followers && id === actor.followers) out.followers = true;
    else if (actor.following && id === actor.following) out.following = true;
    // The actor itself (what a Person not discoverable lists) allows only itself: nobody else.
    else if (id !== actor.uri) out.unsupported = true;
    else continue;
    out.any = true;
  }
  return out;
}

/**
 * Account#feature_policy_for_account for a remote `target` and our `owner`, read from the actor document its
 * server serves now (`interactionPolicy.canFeature`): one fetch. A fetch that fails reads as no policy.
 */
export async function remoteFeaturePolicy(owner: Account, target: Account & { uri: string }): Promise<FeaturePolicy> {
  let doc: Record<string, unknown>;
  try {
    doc = await fetchObject(target.uri);
  } catch (err) {
    if (err instanceof FetchFailed) return 'missing';
    throw err;
  }
  if (canonicalId(doc.id) !== target.uri) return 'missing';
  const canFeature = objectOf(objectOf(doc.interactionPolicy)?.canFeature);
  const actor = { uri: target.uri, followers: idOf(doc.followers), following: idOf(doc.following) };
  const automatic = audiencesOf(canFeature?.automaticApproval, actor);
  const manual = audiencesOf(canFeature?.manualApproval, actor);
  if (!automatic.any && !manual.any) return 'missing';
  if (automatic.public) return 'automatic';
  // Followers: the owner follows the target; following: the target follows the owner.
  const ownerFollows = async () => (await followEdge(owner.id, target.id)) !== undefined;
  const targetFollows = async () => (await followEdge(target.id, owner.id)) !== undefined;
  if (automatic.followers && (await ownerFollows())) return 'automatic';
  if (automatic.following && (await targetFollows())) return 'automatic';
  if (manual.public) return 'manual';
  if (manual.followers && (await ownerFollows())) return 'manual';
  if (manual.following && (await targetFollows())) return 'manual';
  if (automatic.unsupported || manual.unsupported) return 'unknown';
  return 'denied';
}

// ---- another server's authorization ----

/**
 * VerifyFeaturedItemService: the FeatureAuthorization at `approvalUri`, fetched from the featured account's server,
 * names this collection and this account. One fetch; false for anything else (a failure included).
 */
export async function authorizationVerifies(approvalUri: string, collectionUri: string, featuredUri: string): Promise<boolean> {
  if (!sameHost(approvalUri, featuredUri) || isLocalUrl(approvalUri)) return false;
  let doc: Record<string, unknown>;
  try {
    doc = await fetchObject(approvalUri);
  } catch (err) {
    if (err instanceof FetchFailed) return false;
    throw err;
  }
  return (
    typeOf(doc) === 'FeatureAuthorization' &&
    canonicalId(doc.id) === approvalUri &&
    idOf(doc.interactingObject) === collectionUri &&
    idOf(doc.interactionTarget) === featuredUri
  );
}
