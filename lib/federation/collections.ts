// Collections (Mastodon 4.6) between servers, our side: each local collection served as a `FeaturedCollection`
// (its accepted items as `FeaturedItem`s, in their order), the actor's `featuredCollections` listing them, and
// what a change sends to the owner's followers' servers, as Mastodon's collection services send it:
// CreateCollectionService an Add of the collection to the list, UpdateCollectionService an Update of it,
// DeleteCollectionService a Remove of it from the list, AddAccountToCollectionService an Add of the item to the
// collection (for a remote account featured, once its server accepted our FeatureRequest),
// DeleteCollectionItemService a Remove of the item. Sends run after the write, through ./outbox.ts `quietly`.
import { accountsByIds, type Account } from '../db/accounts';
import { blocks, collectionById, collectionsByIds, ownedCollectionIds, type Collection, type CollectionEntry } from '../db/collections';
import { notFound } from '../errors';
import { isId, newId } from '../ids';
import { isSuspended } from '../policy/sanctions';
import { actorUri } from './activities';
import { localAccountNamed, type Requester } from './documents';
import { deliver, followerInboxes, quietly } from './outbox';
import { CONSENT_CONTEXT, featureAuthorizationUri } from './collections_consent';
import { actorUriOf, type ApObject } from './render';
import { AS_PUBLIC, apUrls } from './urls';

/** The items a peer is shown: accepted ones of accounts that still exist, in the collection's order. */
function servedItems(c: Collection, accounts: Map<string, Account>): { entry: CollectionEntry; account: Account }[] {
  return [...c.items]
    .sort((a, b) => a.position - b.position)
    .filter((e) => e.state === 'accepted')
    .flatMap((entry) => {
      const account = accounts.get(entry.accountId);
      return account && !isSuspended(account) && actorUriOf(account) ? [{ entry, account }] : [];
    });
}

/**
 * One item as ActivityPub::FeaturedItemSerializer renders it: with the consent it stands on, our authorization for
 * one of our accounts, the one its server gave for a remote account (./collections_consent.ts).
 */
export function featuredItemOf(owner: Pick<Account, 'username'>, c: Pick<Collection, 'id'>, entry: CollectionEntry, account: Account): ApObject {
  const authorization = account.domain === null ? featureAuthorizationUri(account.username, c.id, entry.id) : entry.approvalUri;
  return {
    id: apUrls.collectionItem(owner.username, c.id, entry.id),
    type: 'FeaturedItem',
    featuredObject: actorUriOf(account),
    featuredObjectType: account.bot ? 'Service' : 'Person',
    ...(authorization ? { featureAuthorization: authorization } : {}),
  };
}

/**
 * A local collection as ActivityPub::FeaturedCollectionSerializer renders it: the description as `summary`, or as
 * `summaryMap` under its language when it has one; its hashtag as `topic`.
 */
export function featuredCollectionOf(owner: Account, c: Collection, accounts: Map<string, Account>): ApObject {
  const items = servedItems(c, accounts);
  const description = c.description ?? '';
  return {
    id: apUrls.collection(owner.username, c.id),
    type: 'FeaturedCollection',
    totalItems: items.length,
    name: c.name,
    attributedTo: apUrls.actor(owner.username),
    sensitive: c.sensitive,
    discoverable: c.discoverable,
    published: c.createdAt,
    updated: c.updatedAt,
    ...(c.language ? { summaryMap: { [c.language]: description } } : { summary: description }),
    ...(c.tagName ? { topic: { type: 'Hashtag', href: apUrls.tag(c.tagName.toLowerCase()), name: `#${c.tagName}` } } : {}),
    orderedItems: items.map(({ entry, account }) => featuredItemOf(owner, c, entry, account)),
  };
}

/** The accounts the collections' items name: one BatchGet. */
const itemAccounts = (collections: Collection[]) => accountsByIds([...new Set(collections.flatMap((c) => c.items.map((e) => e.accountId)))]);

/**
 * AccountPolicy#index_collections? and CollectionPolicy#show? for a peer: nothing for a signed request of an actor
 * the owner blocks ("Record not found", as for any document we do not serve).
 */
async function refuseBlocked(owner: Account, requester: Requester): Promise<void> {
  const signer = (await requester())?.account;
  if (signer && (await blocks(owner.id, signer.id))) throw notFound();
}

/** GET /users/:username/collections/:id: the local collection of that owner. */
export async function featuredCollectionDocument(username: string, collectionId: string, requester: Requester): Promise<ApObject> {
  const owner = await localAccountNamed(username);
  const c = isId(collectionId) ? await collectionById(collectionId) : undefined;
  if (!c || c.accountId !== owner.id || !c.local) throw notFound();
  await refuseBlocked(owner, requester);
  return { '@context': CONSENT_CONTEXT, ...featuredCollectionOf(owner, c, await itemAccounts([c])) };
}

/**
 * GET /users/:username/featured_collections: every collection of the owner, newest first, whole (an account owns
 * a few: lib/collections MAX_COLLECTIONS), where Mastodon pages them five at a time. Mastodon lists the ones not
 * discoverable too (each says so): a receiving server leaves them out of its listings.
 */
export async function featuredCollectionsDocument(username: string, requester: Requester): Promise<ApObject> {
  const owner = await localAccountNamed(username);
  await refuseBlocked(owner, requester);
  const collections = (await collectionsByIds((await ownedCollectionIds(owner.id)).map((c) => c.collectionId))).filter((c) => c.local);
  const accounts = await itemAccounts(collections);
  return {
    '@context': CONSENT_CONTEXT,
    id: apUrls.featuredCollections(owner.username),
    type: 'Collection',
    totalItems: collections.length,
    items: collections.map((c) => featuredCollectionOf(owner, c, accounts)),
  };
}

// ---- what changes send ----

type Change =
  | { kind: 'created'; collection: Collection }
  | { kind: 'updated'; collection: Collection }
  | { kind: 'deleted'; collection: Collection }
  | { kind: 'itemAdded'; collection: Collection; entry: CollectionEntry }
  | { kind: 'itemRemoved'; collection: Collection; entry: CollectionEntry };

/** The activity a change of `owner`'s collection sends, or none (an item of a remote account is announced once its server accepted it). */
export async function collectionActivity(owner: Account, change: Change): Promise<ApObject | undefined> {
  const c = change.collection;
  const actor = actorUri(owner);
  const base = { '@context': CONSENT_CONTEXT, actor };
  switch (change.kind) {
    case 'created':
      return { ...base, id: apUrls.activityId(owner.username, 'collections', newId()), type: 'Add', target: apUrls.featuredCollections(owner.username), object: featuredCollectionOf(owner, c, await itemAccounts([c])) };
    case 'updated':
      return {
        ...base,
        // UpdateFeaturedCollectionSerializer: the collection's id with the instant of the change.
        id: `${apUrls.collection(owner.username, c.id)}#updates/${Math.floor(Date.parse(c.updatedAt) / 1000)}`,
        type: 'Update',
        to: [AS_PUBLIC],
        object: featuredCollectionOf(owner, c, await itemAccounts([c])),
      };
    case 'deleted':
      return { ...base, id: apUrls.activityId(owner.username, 'collections', newId()), type: 'Remove', target: apUrls.featuredCollections(owner.username), object: apUrls.collection(owner.username, c.id) };
    case 'itemAdded': {
      const account = (await accountsByIds([change.entry.accountId])).get(change.entry.accountId);
      if (!account || change.entry.state !== 'accepted' || (account.domain !== null && !change.entry.approvalUri)) return undefined;
      return { ...base, id: apUrls.activityId(owner.username, 'collections', newId()), type: 'Add', target: apUrls.collection(owner.username, c.id), object: featuredItemOf(owner, c, change.entry, account) };
    }
    case 'itemRemoved':
      return { ...base, id: apUrls.activityId(owner.username, 'collections', newId()), type: 'Remove', target: apUrls.collection(owner.username, c.id), object: apUrls.collectionItem(owner.username, c.id, change.entry.id) };
  }
}

/** Sends a change of a local collection to the owner's followers' servers (AccountRawDistributionWorker); never throws. */
export async function sendCollectionChange(owner: Account, change: Change): Promise<void> {
  await quietly(`collection ${change.kind}`, { accountId: owner.id, collectionId: change.collection.id }, async () => {
    if (owner.domain !== null || !change.collection.local) return;
    const activity = await collectionActivity(owner, change);
    if (!activity) return;
    await deliver(activity, await followerInboxes(owner.id), owner);
  });
}
