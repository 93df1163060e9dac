// Collections as Mastodon 4.6 has them (app/models/collection.rb, the Create/Update/Delete collection services,
// AddAccountToCollectionService, DeleteCollectionItemService, RevokeCollectionItemService, CollectionPolicy,
// AccountPolicy#feature?): who may see, change and be featured in one, its limits and its 422s, and the
// notifications it sends (added_to_collection to a local account added, collection_update to the local accounts
// featured when the name or description changes).
import { z } from 'zod';
import { Violations, describe } from '../accounts/violations';
import { accountById, accountsByIds, type Account } from '../db/accounts';
import {
  blocks,
  collectionById,
  collectionsByIds,
  createCollection as putNewCollection,
  deleteCollection as removeCollection,
  featuredInEntries,
  isLive,
  ownedCollectionIds,
  saveCollection,
  type Collection,
  type CollectionEntry,
} from '../db/collections';
import { followEdge } from '../db/follows';
import { sendCollectionChange } from '../federation/collections';
import { featureRequestUri, remoteFeaturePolicy, sendAuthorizationDelete, sendFeatureRequest } from '../federation/collections_consent';
import { apUrls } from '../federation/urls';
import { nowIso } from '../db/table';
import { forbidden, HttpError, notFound, unprocessable } from '../errors';
import { isId, newId } from '../ids';
import { blockedBetween, isVisible } from '../policy';
import { isSuspended } from '../policy/sanctions';
import { enqueue } from '../queue';
import { booleanish, oneOrMany } from '../schema';
import { isLanguageCode } from '../text/languages';
import { hashtagName } from '../tags/featured';

/** Collection::MAX_ITEMS: pending and accepted items together. */
export const MAX_ITEMS = 25;
/** A local collection's name and description limits (Collection's validations). */
export const NAME_MAX = 40;
export const DESCRIPTION_MAX = 100;
/**
 * How many collections an account may own (Mastodon: the user's role's `collection_limit`). Roles here carry no
 * such field, so every account has this one limit.
 */
export const MAX_COLLECTIONS = 10;
/** Api::V1::CollectionsController::DEFAULT_COLLECTIONS_LIMIT; `limit` goes up to 80 as everywhere. */
export const DEFAULT_PAGE = 40;

const id = z.string({ invalid_type_error: 'must be an id' }).regex(/^\d{1,20}$/, 'must be an id');
const optionalText = z.union([z.string(), z.null()], { invalid_type_error: 'must be a string' }).optional();

/** The form fields of create and update; their values are checked by `violationsOf`, as the model validates them. */
export const collectionFields = {
  name: z.string({ invalid_type_error: 'must be a string' }).optional(),
  description: optionalText,
  language: optionalText,
  tag_name: optionalText,
  sensitive: booleanish.optional(),
  discoverable: booleanish.optional(),
};
export const accountIdsField = oneOrMany(z.array(id, { invalid_type_error: 'must be a list of ids' })).optional();

export type CollectionInput = {
  name?: string;
  description?: string | null;
  language?: string | null;
  tag_name?: string | null;
  sensitive?: boolean;
  discoverable?: boolean;
};

const chars = (s: string) => Array.from(s).length;

/**
 * Mastodon answers a collection's failed validation as `{"error": {"error": "Validation failed: ...", "details":
 * {...}}}` (CollectionsController's rescue around ValidationErrorFormatter), the whole formatter's object under `error`.
 */
const nested = (v: Violations): HttpError => new HttpError(422, v.message, { error: { error: v.message, details: v.details } });

/** The collection's fields after the change, or the 422 naming every field that breaks a rule. */
function applied(base: Partial<Collection>, input: CollectionInput): Pick<Collection, 'name' | 'description' | 'language' | 'sensitive' | 'discoverable' | 'tagName'> {
  const v = new Violations();
  const name = (input.name ?? base.name ?? '').trim();
  if (name === '') v.add('name', 'Name', 'ERR_BLANK', describe.blank);
  else if (chars(name) > NAME_MAX) v.add('name', 'Name', 'ERR_TOO_LONG', describe.tooLong(NAME_MAX));
  const description = input.description === undefined ? base.description ?? null : input.description;
  if (description !== null && chars(description) > DESCRIPTION_MAX) v.add('description', 'Description', 'ERR_TOO_LONG', describe.tooLong(DESCRIPTION_MAX));
  const rawLanguage = input.language === undefined ? base.language ?? null : input.language;
  const language = rawLanguage === null || rawLanguage.trim() === '' ? null : rawLanguage.trim();
  if (language !== null && !isLanguageCode(language)) v.add('language', 'Language', 'ERR_INVALID', 'is not a valid language');
  // Both columns are NOT NULL without a default: a collection created without them fails Mastodon's inclusion check.
  const sensitive = input.sensitive ?? base.sensitive;
  const discoverable = input.discoverable ?? base.discoverable;
  if (sensitive === undefined) v.add('sensitive', 'Sensitive', 'ERR_INCLUSION', describe.inclusion);
  if (discoverable === undefined) v.add('discoverable', 'Discoverable', 'ERR_INCLUSION', describe.inclusion);
  let tagName = base.tagName ?? null;
  if (input.tag_name !== undefined) {
    const raw = input.tag_name?.trim() ?? '';
    if (raw === '') tagName = null;
    else {
      const parsed = hashtagName(raw);
      if (!parsed) v.add('tag_name', 'Tag name', 'ERR_INVALID', describe.invalid);
      tagName = parsed ?? null;
    }
  }
  if (!v.empty || sensitive === undefined || discoverable === undefined) throw nested(v);
  return { name, description, language: language?.toLowerCase() ?? null, sensitive, discoverable, tagName };
}

// ---- who may do what ----

/** The account an id names for collections, or 404: unknown, not yet confirmed, or suspended (gone for others). */
async function existingAccount(accountId: string): Promise<Account> {
  if (!isId(accountId)) throw notFound();
  const account = await accountById(accountId);
  if (!account || !isVisible(account) || isSuspended(account)) throw notFound();
  return account;
}

/**
 * AccountPolicy#feature?: `target` lets `owner` feature it (Account#feature_policy_for_account: a local account
 * when it is discoverable, and, locked, only for an owner who follows it; a remote account when the
 * `interactionPolicy.canFeature` its server serves now approves the owner automatically or on request, one fetch
 * of its actor, after the blocks) and neither blocks the other.
 */
export async function mayFeature(owner: Account, target: Account): Promise<boolean> {
  if (target.domain === null) {
    if (!target.discoverable) return false;
    if (target.locked && target.id !== owner.id && !(await followEdge(owner.id, target.id))) return false;
  }
  if (target.id !== owner.id && (await blockedBetween(owner.id, target.id))) return false;
  if (target.domain !== null) {
    if (!target.uri) return false;
    const policy = await remoteFeaturePolicy(owner, { ...target, uri: target.uri });
    return policy === 'automatic' || policy === 'manual';
  }
  return true;
}

/**
 * CollectionPolicy#show? and AccountPolicy#index_collections?: not for a viewer the owner blocks. (Mastodon asks
 * `blocking_or_domain_blocking?`; a viewer here is always a local user, whom no domain block of the owner's covers.)
 */
const ownerShuts = async (ownerId: string, viewer: Account | undefined) =>
  viewer !== undefined && viewer.id !== ownerId && (await blocks(ownerId, viewer.id));

/** A collection whose owner still exists for the viewer, or 404. */
async function findCollection(collectionId: string, consistent = false): Promise<{ collection: Collection; owner: Account }> {
  if (!isId(collectionId)) throw notFound();
  const collection = await collectionById(collectionId, consistent);
  if (!collection) throw notFound();
  const owner = await accountById(collection.accountId);
  if (!owner || isSuspended(owner)) throw notFound();
  return { collection, owner };
}

/** The viewer's own collection, or 404 when none has that id and 403 when another's (CollectionPolicy#update?). */
async function ownCollection(viewer: Account, collectionId: string): Promise<Collection> {
  const { collection } = await findCollection(collectionId, true);
  if (collection.accountId !== viewer.id) throw forbidden();
  return collection;
}

// ---- reads ----

export type Shown = { collection: Collection; owner: Account };

/** GET /api/v1/collections/:id: 403 for a viewer the owner blocks, as CollectionPolicy#show? answers. */
export async function showCollection(collectionId: string, viewer: Account | undefined): Promise<Shown> {
  const shown = await findCollection(collectionId);
  if (await ownerShuts(shown.owner.id, viewer)) throw forbidden();
  return shown;
}

export type CollectionsPage = { collections: Collection[]; more: boolean };

/**
 * GET /api/v1/accounts/:id/collections: newest first, only the discoverable ones unless the viewer owns them; none
 * for a viewer the owner blocks (Mastodon renders an empty list there, not an error).
 */
export async function collectionsOf(accountId: string, viewer: Account | undefined, page: { offset: number; limit: number }): Promise<CollectionsPage> {
  const owner = await existingAccount(accountId);
  if (await ownerShuts(owner.id, viewer)) return { collections: [], more: false };
  const own = viewer?.id === owner.id;
  const ids = (await ownedCollectionIds(owner.id)).filter((c) => own || c.discoverable).map((c) => c.collectionId);
  const slice = ids.slice(page.offset, page.offset + page.limit);
  return { collections: await collectionsByIds(slice), more: ids.length > page.offset + page.limit };
}

/** GET /api/v1/accounts/:id/in_collections: only the account itself may ask (AccountPolicy#index_featured_in_collections?). */
export async function collectionsFeaturing(accountId: string, viewer: Account, page: { offset: number; limit: number }): Promise<CollectionsPage> {
  const account = await existingAccount(accountId);
  if (account.id !== viewer.id) throw forbidden();
  const { entries, more } = await featuredInEntries(account.id, page.offset, page.limit);
  const collections = await collectionsByIds(entries.map((e) => e.collectionId));
  // An owner suspended since is gone with its collections.
  const owners = await accountsByIds([...new Set(collections.map((c) => c.accountId))]);
  return { collections: collections.filter((c) => { const o = owners.get(c.accountId); return o !== undefined && !isSuspended(o); }), more };
}

// ---- writes ----

const tooMany = () => nested(new Violations().add('collection_items', 'Collection items', 'ERR_TOO_LONG', `are too many (maximum is ${MAX_ITEMS})`));

/**
 * Accounts asked to be featured: each must exist (404) and allow it (403, Mastodon's NotPermittedError). Counted
 * before any remote account's policy is fetched, so that a long list costs no fetches.
 */
async function featurable(owner: Account, accountIds: string[]): Promise<Account[]> {
  const accounts: Account[] = [];
  for (const accountId of accountIds) accounts.push(await existingAccount(accountId));
  if (accounts.length > MAX_ITEMS) throw tooMany();
  for (const account of accounts) if (!(await mayFeature(owner, account))) throw forbidden();
  return accounts;
}

/**
 * A new item of our collection: accepted for one of our accounts (its consent is its policy), pending for a
 * remote one until its server answers the FeatureRequest minted here (AddAccountToCollectionService).
 */
const newEntry = (owner: Account, collectionId: string, account: Account, position: number, now: string): CollectionEntry => {
  const id = newId();
  const remote = account.domain !== null;
  return { id, accountId: account.id, state: remote ? 'pending' : 'accepted', position, createdAt: now, uri: null, approvalUri: null, activityUri: remote ? featureRequestUri(owner.username, collectionId, id) : null };
};

/** added_to_collection, to the local accounts among them (a remote one's server is asked instead). */
async function notifyAdded(collection: Collection, entries: CollectionEntry[], accounts: Account[]): Promise<void> {
  for (const entry of entries) {
    if (accounts.find((a) => a.id === entry.accountId)?.domain !== null) continue;
    await enqueue('notify', { type: 'added_to_collection', accountId: entry.accountId, fromAccountId: collection.accountId, collectionId: collection.id, activityId: entry.id });
  }
}

/** The FeatureRequests of the pending items, each to its account's server. */
async function askRemote(owner: Account, collection: Collection, entries: CollectionEntry[], accounts: Account[]): Promise<void> {
  for (const entry of entries) {
    const account = accounts.find((a) => a.id === entry.accountId);
    if (account && account.domain !== null && entry.state === 'pending') await sendFeatureRequest(owner, collection, entry, account);
  }
}

/** POST /api/v1/collections: the collection with its first accounts, within the account's limit. */
export async function createCollection(owner: Account, input: CollectionInput & { account_ids?: string[] }): Promise<Collection> {
  const fields = applied({}, input);
  const ids = [...new Set(input.account_ids ?? [])];
  const accounts = await featurable(owner, ids);
  const now = nowIso();
  const collectionId = newId();
  const items = accounts.map((a, i) => newEntry(owner, collectionId, a, i + 1, now));
  const collection: Collection = { id: collectionId, accountId: owner.id, ...fields, local: true, uri: apUrls.collection(owner.username, collectionId), items, nextPosition: items.length + 1, version: 0, createdAt: now, updatedAt: now };
  const result = await putNewCollection(collection, MAX_COLLECTIONS);
  if ('failed' in result) {
    throw nested(new Violations().add('base', 'You', 'ERR_TOO_LONG', `have reached the maximum number of collections (${MAX_COLLECTIONS})`));
  }
  await notifyAdded(collection, items, accounts);
  await sendCollectionChange(owner, { kind: 'created', collection });
  await askRemote(owner, collection, items, accounts);
  return collection;
}

/** Tries a change of the collection until it is written against the version it was decided on. */
async function changing<T>(viewer: Account, collectionId: string, decide: (c: Collection) => Promise<{ next: Collection; added?: CollectionEntry[]; removed?: CollectionEntry[]; answer: T }>): Promise<{ collection: Collection; answer: T }> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await ownCollection(viewer, collectionId);
    const { next, added, removed, answer } = await decide(current);
    if (await saveCollection(current, next, { added, removed })) return { collection: next, answer };
  }
  throw new HttpError(409, 'The collection is being changed by another request, try again');
}

/** PATCH /api/v1/collections/:id: the collection's own fields; its accounts are told when its name or description changed. */
export async function updateCollection(viewer: Account, collectionId: string, input: CollectionInput): Promise<Collection> {
  const { collection, answer: outcome } = await changing(viewer, collectionId, async (current) => {
    const fields = applied(current, input);
    const changed = fields.name !== current.name || fields.description !== current.description;
    const same = changed === false && fields.language === current.language && fields.sensitive === current.sensitive && fields.discoverable === current.discoverable && fields.tagName === current.tagName;
    return { next: { ...current, ...fields, updatedAt: same ? current.updatedAt : nowIso() }, answer: { changed, same } };
  });
  const { changed, same } = outcome;
  // UpdateCollectionService sends the Update whatever changed; a PATCH that changed nothing changed nothing.
  if (!same) await sendCollectionChange(viewer, { kind: 'updated', collection });
  // NotifyOfCollectionUpdateService: the local accounts whose item is accepted, once per change.
  if (changed) {
    const updateId = newId();
    const featured = collection.items.filter((e) => e.state === 'accepted');
    const accounts = await accountsByIds(featured.map((e) => e.accountId));
    for (const entry of featured) {
      if (accounts.get(entry.accountId)?.domain !== null) continue;
      await enqueue('notify', { type: 'collection_update', accountId: entry.accountId, fromAccountId: collection.accountId, collectionId: collection.id, activityId: updateId });
    }
  }
  return collection;
}

/** DELETE /api/v1/collections/:id. */
export async function deleteCollection(viewer: Account, collectionId: string): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await ownCollection(viewer, collectionId);
    if (await removeCollection(current)) {
      await sendCollectionChange(viewer, { kind: 'deleted', collection: current });
      return;
    }
  }
  throw new HttpError(409, 'The collection is being changed by another request, try again');
}

/**
 * POST /api/v1/collections/:id/items: the new item, accepted for a local account (its consent is its
 * discoverability), pending for a remote one, whose server is sent our FeatureRequest.
 */
export async function addItem(viewer: Account, collectionId: string, accountId: string | undefined): Promise<CollectionEntry> {
  if (accountId === undefined || accountId === '') throw unprocessable('`account_id` parameter is missing');
  // The owner's check comes first, as the controller authorizes the collection before the account.
  await ownCollection(viewer, collectionId);
  const account = await existingAccount(accountId);
  if (!(await mayFeature(viewer, account))) throw forbidden();
  const { collection, answer: entry } = await changing(viewer, collectionId, async (current) => {
    if (current.items.some((e) => e.accountId === account.id)) throw unprocessable('Validation failed: Account has already been taken');
    if (current.items.filter(isLive).length >= MAX_ITEMS) throw unprocessable(`Validation failed: Collection items are too many (maximum is ${MAX_ITEMS})`);
    const entry = newEntry(viewer, current.id, account, current.nextPosition, nowIso());
    return { next: { ...current, items: [...current.items, entry], nextPosition: current.nextPosition + 1 }, added: [entry], answer: entry };
  });
  await notifyAdded(collection, [entry], [account]);
  await sendCollectionChange(viewer, { kind: 'itemAdded', collection, entry });
  await askRemote(viewer, collection, [entry], [account]);
  return entry;
}

/** DELETE /api/v1/collections/:id/items/:item_id: the owner takes an item out (404 for an item not in it). */
export async function removeItem(viewer: Account, collectionId: string, itemId: string): Promise<void> {
  const { collection, answer: entry } = await changing(viewer, collectionId, async (current) => {
    const entry = current.items.find((e) => e.id === itemId);
    if (!entry) throw notFound();
    return { next: { ...current, items: current.items.filter((e) => e.id !== itemId) }, removed: isLive(entry) ? [entry] : [], answer: entry };
  });
  await sendCollectionChange(viewer, { kind: 'itemRemoved', collection, entry });
}

/**
 * POST /api/v1/collections/:id/items/:item_id/revoke: the featured account withdraws its consent. The item stays,
 * revoked, as Mastodon keeps the row (so the owner cannot add the account again), and shows no more; our
 * authorization of it is gone, and a remote collection's server is sent its Delete (RevokeCollectionItemService).
 */
export async function revokeItem(viewer: Account, collectionId: string, itemId: string): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const { collection: current } = await findCollection(collectionId, true);
    const entry = current.items.find((e) => e.id === itemId);
    if (!entry) throw notFound();
    if (entry.accountId !== viewer.id) throw forbidden();
    if (entry.state === 'revoked') return;
    const next: Collection = { ...current, items: current.items.map((e) => (e.id === itemId ? { ...e, state: 'revoked' as const } : e)) };
    if (await saveCollection(current, next, { removed: isLive(entry) ? [entry] : [] })) {
      if (!current.local && current.uri && entry.state === 'accepted') {
        const owner = await accountById(current.accountId);
        if (owner) await sendAuthorizationDelete(viewer, owner, current.uri, current, entry);
      }
      return;
    }
  }
  throw new HttpError(409, 'The collection is being changed by another request, try again');
}
