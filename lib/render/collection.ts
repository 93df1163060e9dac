// Collection, CollectionItem, WrappedCollection, Collections and CollectionWithAccounts
// (https://docs.joinmastodon.org/entities/Collection/), as REST::CollectionSerializer renders them for a viewer:
// the owner sees pending and accepted items, everyone else accepted ones only, and nobody the items of accounts
// it blocks (Collection#items_for). An item whose account is gone (deleted, or suspended) is left out too.
// A page costs one BatchGet of the owners' and items' accounts and one of the viewer's blocks among them.
import { accountsByIds, type Account } from '../db/accounts';
import { blockedAmong, type Collection, type CollectionEntry } from '../db/collections';
import { config } from '../config';
import { goneFor } from '../policy/sanctions';
import { renderAccount } from './account';
import { tagUrl } from './status';

export const renderCollectionItem = (entry: CollectionEntry) => ({
  id: entry.id,
  // REST::CollectionItemSerializer names the account only while the item is pending or accepted.
  ...(entry.state === 'pending' || entry.state === 'accepted' ? { account_id: entry.accountId } : {}),
  state: entry.state,
  created_at: entry.createdAt,
});

/**
 * The ActivityPub id of a local collection stored before its record held one: the form lib/federation/urls.ts
 * apUrls.collection gives (which builds every id stored since; a renderer may not import federation, which renders).
 */
const storedBeforeUris = (owner: Pick<Account, 'username'>, collectionId: string) => `${config.baseUrl}/users/${owner.username}/collections/${collectionId}`;

/** What a page of collections needs beside them: their accounts, and the viewer's blocks among those. */
export type CollectionFacts = { accounts: Map<string, Account>; blocked: ReadonlySet<string>; viewerId: string | undefined };

export async function collectionFacts(collections: Collection[], viewer: Account | undefined): Promise<CollectionFacts> {
  const itemAccountIds = [...new Set(collections.flatMap((c) => c.items.map((e) => e.accountId)))];
  const [accounts, blocked] = await Promise.all([
    accountsByIds([...new Set([...collections.map((c) => c.accountId), ...itemAccountIds])]),
    viewer ? blockedAmong(viewer.id, itemAccountIds.filter((id) => id !== viewer.id)) : Promise.resolve(new Set<string>()),
  ]);
  return { accounts, blocked, viewerId: viewer?.id };
}

/** The items the viewer is shown, in their order in the collection. */
export function shownItems(c: Collection, facts: CollectionFacts): CollectionEntry[] {
  const own = facts.viewerId === c.accountId;
  return [...c.items]
    .sort((a, b) => a.position - b.position)
    .filter((e) => (own ? e.state === 'pending' || e.state === 'accepted' : e.state === 'accepted'))
    .filter((e) => !facts.blocked.has(e.accountId))
    .filter((e) => {
      const account = facts.accounts.get(e.accountId);
      return account !== undefined && !goneFor(account, facts.viewerId);
    });
}

/** The Collection entity, or undefined when its owner is gone. */
export function renderCollection(c: Collection, facts: CollectionFacts) {
  const owner = facts.accounts.get(c.accountId);
  if (!owner) return undefined;
  return {
    id: c.id,
    uri: c.uri ?? storedBeforeUris(owner, c.id),
    // No HTML page of a collection is served here, and the entity allows none.
    url: null,
    name: c.name,
    description: c.description,
    language: c.language,
    account_id: c.accountId,
    local: c.local,
    sensitive: c.sensitive,
    discoverable: c.discoverable,
    // Mastodon's counter cache counts every item row, revoked ones included.
    item_count: c.items.length,
    tag: c.tagName ? { name: c.tagName, url: tagUrl(c.tagName.toLowerCase()) } : null,
    items: shownItems(c, facts).map(renderCollectionItem),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export type RenderedCollection = NonNullable<ReturnType<typeof renderCollection>>;

/** A page of collections for the viewer: one BatchGet of accounts, one of blocks. */
export async function renderCollections(collections: Collection[], viewer: Account | undefined): Promise<RenderedCollection[]> {
  const facts = await collectionFacts(collections, viewer);
  return collections.flatMap((c) => renderCollection(c, facts) ?? []);
}

/** WrappedCollection: `{ collection }`. */
export async function renderWrappedCollection(c: Collection, viewer: Account | undefined) {
  const [collection] = await renderCollections([c], viewer);
  return { collection: collection ?? null };
}

/** CollectionWithAccounts: the collection, and the full accounts of its owner and of every item shown. */
export async function renderCollectionWithAccounts(c: Collection, viewer: Account | undefined) {
  const facts = await collectionFacts([c], viewer);
  const collection = renderCollection(c, facts);
  const owner = facts.accounts.get(c.accountId);
  const accounts = [...(owner ? [owner] : []), ...shownItems(c, facts).flatMap((e) => facts.accounts.get(e.accountId) ?? [])];
  const unique = [...new Map(accounts.map((a) => [a.id, a])).values()];
  return { accounts: unique.map((a) => renderAccount(a)), collection };
}
