// Pinned posts of remote accounts: an actor's `featured` collection
// (https://docs.joinmastodon.org/spec/activitypub/#featured) is read after
// its document is saved (fetched, refreshed, or sent in an Update), by the
// remoteMedia queue's worker (./featured_requests.ts asks), as Mastodon's
// account processing has it read, and what it lists becomes the account's
// pinned set, so GET /api/v1/accounts/:id/statuses?pinned=true shows it.
// Bounded, since every actor save asks: the collection and at most its first
// page, at most MAX_FEATURED items, each a Note of the account itself on its
// own origin, stored through storeRemoteNote without fan-out (pinning an old
// post is not news for anyone's home), all within FEATURED_BUDGET_MS. A
// collection that cannot be read, or not in time, keeps the previous set; one
// that can be read replaces it. Actors saved while one account's collection is
// read (authors of the ancestors of its Notes) do not ask for theirs in turn:
// one account's pins never start a chain. Nor do actors saved during a
// signature check (lookupKey, which saves through ./actor_store.ts without
// asking): its account's next save asks.
import { accountById, type Account } from '../db/accounts';
import { pinnedIdsOf, replacePins } from '../db/account_pins';
import { addPin, removePin } from '../db/interactions';
import { statusById } from '../db/statuses';
import { remoteStatusIdByUri } from '../db/remote';
import { log } from '../log';
import { FetchFailed, fetchObject, REQUEST_TIMEOUT_MS } from './fetch';
import { readingFeatured, readsFeatured } from './featured_requests';
import { storeRemoteNote } from './notes';
import { asArray, idOf, objectOf, typeOf, type ApDocument } from './vocab';

/** Mastodon pins at most five statuses; a peer's longer list is cut there. */
export const MAX_FEATURED = 5;

const COLLECTION_TYPES = ['Collection', 'OrderedCollection', 'CollectionPage', 'OrderedCollectionPage'];

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};
const onOrigin = (url: string | undefined, of: string) => url !== undefined && originOf(url) !== undefined && originOf(url) === originOf(of);

/** A collection (or page) document fetched from the account's origin, its id being where it was asked for. */
async function collectionAt(url: string, account: Account): Promise<ApDocument | undefined> {
  if (!onOrigin(url, account.uri!)) return undefined;
  const doc = await fetchObject(url);
  if (doc.id !== url || !COLLECTION_TYPES.includes(typeOf(doc) ?? '')) return undefined;
  return doc;
}

/** The items of the collection, or of its first page (embedded, or fetched: one more request at most). */
async function firstItems(collection: ApDocument, account: Account): Promise<unknown[] | undefined> {
  const own = [...asArray(collection.orderedItems), ...asArray(collection.items)];
  if (own.length > 0 || collection.first === undefined) return own;
  const embedded = objectOf(collection.first);
  const page = embedded && COLLECTION_TYPES.includes(typeOf(embedded) ?? '') ? embedded : await pageAt(idOf(collection.first), account);
  return page ? [...asArray(page.orderedItems), ...asArray(page.items)] : undefined;
}

const pageAt = (url: string | undefined, account: Account) => (url ? collectionAt(url, account) : Promise.resolve(undefined));

/** The status an item names: the one stored for its id, else the Note (embedded or fetched) stored now. */
async function statusOfItem(item: unknown, account: Account): Promise<string | undefined> {
  const id = idOf(item);
  if (!onOrigin(id, account.uri!)) return undefined;
  const storedId = await remoteStatusIdByUri(id!);
  const stored = storedId ? await statusById(storedId) : undefined;
  if (stored) return stored.accountId === account.id && !stored.reblogOfId ? stored.id : undefined;
  const embedded = objectOf(item);
  const note = embedded && typeOf(embedded) !== undefined && embedded.attributedTo !== undefined ? embedded : await fetchObject(id!);
  if (note.id !== id) return undefined;
  // storeRemoteNote (readNote) refuses a Note not attributed to this account or not on its origin.
  const status = await storeRemoteNote(note, account, { distribute: false });
  return status && status.accountId === account.id ? status.id : undefined;
}

/**
 * The most one read of a collection takes: each request has its own limit (./fetch.ts), and no request starts
 * that could end past this, so the read ends well inside the worker's 60 s however slow the server.
 */
export const FEATURED_BUDGET_MS = 40_000;

/** The remoteMedia worker's `featured` message: the account's collection read, if it is still a remote account with one. */
export async function readFeaturedOf(accountId: string): Promise<void> {
  const account = await accountById(accountId);
  if (account) await syncFeatured(account);
}

/** Reads the account's featured collection and makes it its pinned set; a failure leaves the set as it was. */
export async function syncFeatured(account: Account, budgetMs = FEATURED_BUDGET_MS): Promise<void> {
  if (!readsFeatured(account)) return;
  const featuredUrl = account.featuredUrl!;
  await readingFeatured.run(true, () => readFeatured(account, featuredUrl, Date.now() + budgetMs));
}

async function readFeatured(account: Account, featuredUrl: string, deadline: number): Promise<void> {
  try {
    const collection = await collectionAt(featuredUrl, account);
    const items = collection && (await firstItems(collection, account));
    if (!items) {
      log.info('featured collection ignored', { accountId: account.id, url: featuredUrl });
      return;
    }
    const ids: string[] = [];
    for (const item of items.slice(0, MAX_FEATURED)) {
      if (Date.now() + REQUEST_TIMEOUT_MS > deadline) {
        log.info('featured collection: out of time; pins kept', { accountId: account.id, url: featuredUrl });
        return;
      }
      const id = await statusOfItem(item, account).catch((err: unknown) => {
        if (err instanceof FetchFailed) return undefined;
        throw err;
      });
      if (id && !ids.includes(id)) ids.push(id);
    }
    await replacePins(account.id, ids);
  } catch (err) {
    if (!(err instanceof FetchFailed)) throw err;
    log.info('featured collection unavailable; pins kept', { accountId: account.id, reason: err.reason });
  }
}

/** Is `target` the account's featured collection (an Add/Remove may name another, e.g. its featured tags)? */
const isFeaturedOf = (account: Account, target: string | undefined) => !!account.featuredUrl && target === account.featuredUrl;

/**
 * Add to the actor's featured collection (Mastodon's ActivityPub::Activity::Add): the status pinned, fetched and
 * stored (not distributed) when unknown. Only the account's own status, named on its origin, while it has fewer
 * than MAX_FEATURED pins. Answers whether a pin was written.
 */
export async function receivePin(account: Account, target: string | undefined, object: unknown): Promise<boolean> {
  if (!isFeaturedOf(account, target)) return false;
  if ((await pinnedIdsOf(account.id)).length >= MAX_FEATURED) return false;
  const statusId = await readingFeatured.run(true, () =>
    statusOfItem(object, account).catch((err: unknown) => {
      if (err instanceof FetchFailed) return undefined;
      throw err;
    }),
  );
  return statusId !== undefined && (await addPin(account.id, statusId)) === 'changed';
}

/** Remove from the actor's featured collection: its pin of a stored status of its own goes. Answers whether one went. */
export async function receiveUnpin(account: Account, target: string | undefined, object: unknown): Promise<boolean> {
  const id = idOf(object);
  if (!isFeaturedOf(account, target) || !onOrigin(id, account.uri!)) return false;
  const statusId = await remoteStatusIdByUri(id!);
  const status = statusId ? await statusById(statusId) : undefined;
  return !!status && status.accountId === account.id && (await removePin(account.id, status.id)) === 'changed';
}
