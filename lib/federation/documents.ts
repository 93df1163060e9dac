// What the ActivityPub endpoints serve to other servers: the lookups behind an
// actor, a status, the outbox, the followers and following collections and the
// featured statuses, each answered as the document render.ts builds. Only local
// accounts are served; a status that is not open to anyone is served only to a
// signed request whose actor may see it, and everything else is "Record not found"
// (never 401 or 403, which would tell that it exists).
import { accountByUsername, accountsByIds, type Account } from '../db/accounts';
import { accountStatusesPage, pinnedStatusIds } from '../db/account_statuses';
import { followersPage, followingPage } from '../db/follows';
import { replyIdsOf, statusById, statusesByIds, type Status } from '../db/statuses';
import { forbidden, notFound } from '../errors';
import { isId } from '../ids';
import { log } from '../log';
import type { Page } from '../paging';
import { isPublic, isSuspended, mayView, openToAnyone } from '../policy';
import {
  actorUriOf,
  announceOf,
  createOf,
  noteOf,
  noteSources,
  orderedCollection,
  orderedCollectionPage,
  orderedCollectionWithItems,
  type ApObject,
} from './render';
import { verifyRequest } from './signatures';
import { lookupSignerKey, storedSigner } from './signer_keys';
import { apUrls, isOurHost } from './urls';

/** Items per page: Mastodon's outbox pages hold 20 activities, its follower pages 40 actors. */
export const OUTBOX_PAGE_SIZE = 20;
export const FOLLOWS_PAGE_SIZE = 40;
/** Mastodon lets an account pin five statuses; the featured collection reads a few more in case some are no longer shown. */
const FEATURED_LIMIT = 20;

/** A local account by username; "Record not found" for an unknown name and for a remote account. */
export async function localAccountNamed(username: string, opts: { whileSuspended?: 'served' | 'forbidden' } = {}): Promise<Account> {
  const account = username.length <= 30 ? await accountByUsername(username) : undefined;
  if (!account || account.domain !== null) throw notFound();
  // A suspended account's documents answer 403 while its data is kept (Mastodon's temporary_suspension_response);
  // only its actor document stays served (keys kept, `suspended: true`) so that its signatures still verify.
  if (opts.whileSuspended !== 'served' && isSuspended(account)) throw forbidden();
  return account;
}

// ---- who is asking ----

export type IncomingRequest = { method: string; path: string; headers: Record<string, string | undefined>; body?: string };

/**
 * Who signed a request: the actor's URI and server, and its account when we store one (a follower
 * or a mentioned actor always is stored; a signer we store nothing about sees what anyone sees).
 */
export type Signer = { uri: string; domain: string; account: Account | undefined };

/** The actor a request speaks for, read only when needed; undefined when it is not signed, or not by a key we can verify. */
export type Requester = () => Promise<Signer | undefined>;

/**
 * The actor that signed `req` (draft-cavage HTTP Signature, the key read by ./signer_keys.ts's
 * lookupSignerKey, which stores no new account). Unsigned, badly signed, or signed with a key
 * that cannot be had: undefined, and the caller treats it as anyone.
 */
export function signedRequester(req: IncomingRequest): Requester {
  return async () => {
    if (!req.headers.signature) return undefined;
    // Signed for another server (the signature covers Host): a request replayed here by that server speaks for nobody.
    if (req.headers.host !== undefined && !isOurHost(req.headers.host)) {
      log.debug('signed fetch refused', { reason: `signed for the host ${req.headers.host}`, path: req.path });
      return undefined;
    }
    const verified = await verifyRequest(req, lookupSignerKey);
    if (!verified.ok) {
      log.debug('signed fetch refused', { reason: verified.reason, path: req.path });
      return undefined;
    }
    const account = await storedSigner(verified.ownerUri);
    return { uri: verified.ownerUri, domain: new URL(verified.ownerUri).host.toLowerCase(), account };
  };
}

// ---- statuses ----

export type Served<T> = { document: T; author: Account; status: Status; /** Anyone may read it: caches may keep it. */ open: boolean };

/** A local status (not a reblog) of `author` that `requester` may see; "Record not found" otherwise. */
async function servedStatus(author: Account, id: string, requester: Requester): Promise<Status> {
  const status = isId(id) ? await statusById(id) : undefined;
  if (!status || status.accountId !== author.id || status.uri) throw notFound();
  // Only a status not open to anyone makes us check who asks (a signed request of a follower or a mentioned actor).
  const viewer = openToAnyone(status) ? undefined : (await requester())?.account;
  if (!(await mayView(viewer, status))) throw notFound();
  return status;
}

/** The Note of `username`'s status `id`. */
export async function noteDocument(username: string, id: string, requester: Requester): Promise<Served<ApObject>> {
  const author = await localAccountNamed(username);
  const status = await servedStatus(author, id, requester);
  if (status.reblogOfId) throw notFound();
  const note = noteOf(status, author, await noteSources([status]));
  return { document: note, author, status, open: openToAnyone(status) };
}

/** The activity of `username`'s status `id`: the Create of a status, or the Announce of a public reblog. */
export async function activityDocument(username: string, id: string, requester: Requester): Promise<Served<ApObject>> {
  const author = await localAccountNamed(username);
  const status = await servedStatus(author, id, requester);
  if (status.reblogOfId) {
    const [announce] = await announcesOf([status], author);
    if (!announce) throw notFound();
    return { document: announce, author, status, open: true };
  }
  const note = noteOf(status, author, await noteSources([status]));
  return { document: createOf(status, author, note), author, status, open: openToAnyone(status) };
}

/**
 * The Announces of reblogs that the outbox shows: public reblogs of public statuses
 * whose original (and its author) still exist. Two batch reads: originals, their authors.
 */
async function announcesOf(reblogs: Status[], reblogger: Account): Promise<ApObject[]> {
  const originals = await statusesByIds(reblogs.flatMap((r) => (r.reblogOfId ? [r.reblogOfId] : [])));
  const authors = await accountsByIds([...new Set([...originals.values()].map((o) => o.accountId))]);
  return reblogs.flatMap((reblog) => {
    const original = reblog.reblogOfId ? originals.get(reblog.reblogOfId) : undefined;
    const originalAuthor = original ? authors.get(original.accountId) : undefined;
    if (!isPublic(reblog) || !original || !isPublic(original) || !originalAuthor) return [];
    const announce = announceOf(reblog, reblogger, original, originalAuthor);
    return announce ? [announce] : [];
  });
}

// ---- collections ----

/** Replies per page of a replies collection. */
export const REPLIES_PAGE_SIZE = 20;

/**
 * A status's replies collection: the public and unlisted replies stored here (ours and other servers'), oldest
 * first, by their ActivityPub ids, `REPLIES_PAGE_SIZE` a page, the first page embedded as Mastodon embeds it and
 * each next one after the last id of the one before (`?page=true&min_id=`). Served for a status the requester may
 * see, as its Note is. One Query of the reply ids, then one batch read of a page's statuses and one of their local
 * authors.
 */
export async function repliesDocument(username: string, id: string, requester: Requester, page?: { min_id?: string }): Promise<Served<ApObject>> {
  const author = await localAccountNamed(username);
  const status = await servedStatus(author, id, requester);
  if (status.reblogOfId) throw notFound();
  const collection = apUrls.replies(username, status.id);
  const after = page?.min_id !== undefined && isId(page.min_id) ? BigInt(page.min_id) : undefined;
  const ids = (await replyIdsOf(status.id)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)).filter((r) => after === undefined || BigInt(r) > after);
  const slice = ids.slice(0, REPLIES_PAGE_SIZE);
  const found = await statusesByIds(slice);
  const shown = slice.flatMap((r) => {
    const reply = found.get(r);
    return reply && !reply.reblogOfId && (reply.visibility === 'public' || reply.visibility === 'unlisted') ? [reply] : [];
  });
  const localAuthors = await accountsByIds([...new Set(shown.filter((r) => r.uri === null).map((r) => r.accountId))]);
  const items = shown.flatMap((r) => {
    if (r.uri !== null) return [r.uri];
    const by = localAuthors.get(r.accountId);
    return by && !isSuspended(by) ? [apUrls.status(by.username, r.id)] : [];
  });
  const last = slice.at(-1);
  const pageDoc: ApObject = {
    id: `${collection}?${new URLSearchParams({ page: 'true', ...(page?.min_id !== undefined && after !== undefined ? { min_id: page.min_id } : {}) }).toString()}`,
    type: 'CollectionPage',
    partOf: collection,
    items,
    ...(last !== undefined && ids.length > slice.length ? { next: `${collection}?${new URLSearchParams({ page: 'true', min_id: last }).toString()}` } : {}),
  };
  const document = page ? pageDoc : { id: collection, type: 'Collection', first: pageDoc };
  return { document, author, status, open: openToAnyone(status) };
}

type PageParams = { max_id?: string; min_id?: string };

/** The URL of one page of a collection: `?page=true`, with the bounds it starts from. */
function pageUrl(collection: string, bounds: PageParams = {}): string {
  const params = new URLSearchParams();
  if (bounds.max_id !== undefined) params.set('max_id', bounds.max_id);
  if (bounds.min_id !== undefined) params.set('min_id', bounds.min_id);
  params.set('page', 'true');
  return `${collection}?${params.toString()}`;
}

/**
 * A page of a collection ordered by id, newest first, with Mastodon's links: `next`
 * (older) and `prev` (newer) point from the page's edges, as long as it has items.
 */
function collectionPage(collection: string, bounds: PageParams, ids: { newest?: string; oldest?: string }, orderedItems: unknown[]): ApObject {
  return orderedCollectionPage({
    id: pageUrl(collection, bounds),
    partOf: collection,
    next: ids.oldest ? pageUrl(collection, { max_id: ids.oldest }) : undefined,
    prev: ids.newest ? pageUrl(collection, { min_id: ids.newest }) : undefined,
    orderedItems,
  });
}

const pageOf = (bounds: PageParams, limit: number): Page => ({ ...bounds, limit });

/** The outbox's outline: as many items as the account has statuses (Mastodon's count), pages from the newest. */
export async function outboxDocument(username: string): Promise<ApObject> {
  const account = await localAccountNamed(username);
  const outbox = apUrls.outbox(username);
  return orderedCollection(outbox, account.statusesCount, { first: pageUrl(outbox), last: pageUrl(outbox, { min_id: '0' }) });
}

/**
 * One page of the outbox: a Create for each public status and an Announce for each
 * public reblog of a public status, newest first. Unlisted, followers-only and direct
 * statuses stay out, as the issue asks (Mastodon also lists unlisted ones).
 */
export async function outboxPageDocument(username: string, bounds: PageParams): Promise<ApObject> {
  const account = await localAccountNamed(username);
  const statuses = await accountStatusesPage(account.id, pageOf(bounds, OUTBOX_PAGE_SIZE), {}, async (batch) => batch.filter(isPublic));
  const own = statuses.filter((s) => !s.reblogOfId);
  const [sources, announces] = await Promise.all([noteSources(own), announcesOf(statuses.filter((s) => s.reblogOfId), account)]);
  const announceById = new Map(announces.map((a) => [a.id, a]));
  const items = statuses.flatMap((s) => {
    if (!s.reblogOfId) return [createOf(s, account, noteOf(s, account, sources))];
    const announce = announceById.get(apUrls.activity(account.username, s.id));
    return announce ? [announce] : [];
  });
  return collectionPage(apUrls.outbox(username), bounds, { newest: statuses[0]?.id, oldest: statuses.at(-1)?.id }, items);
}

/** The actor URIs of some accounts, in the order given; accounts gone meanwhile are left out. */
async function actorUris(accountIds: string[]): Promise<string[]> {
  const accounts = await accountsByIds(accountIds);
  return accountIds.flatMap((id) => {
    const account = accounts.get(id);
    const uri = account ? actorUriOf(account) : undefined;
    return uri ? [uri] : [];
  });
}

/** The followers collection's outline (we always show who follows, where Mastodon lets a user hide it). */
export async function followersDocument(username: string): Promise<ApObject> {
  const account = await localAccountNamed(username);
  const followers = apUrls.followers(username);
  // An account that hides its network shows only how many (Mastodon's hide_collections): no page to read.
  return orderedCollection(followers, account.followersCount, account.hideCollections ? undefined : { first: pageUrl(followers) });
}

/** One page of followers, as actor URIs, newest follower id first. */
export async function followersPageDocument(username: string, bounds: PageParams): Promise<ApObject> {
  const account = await localAccountNamed(username);
  if (account.hideCollections) throw forbidden();
  const edges = await followersPage(account.id, pageOf(bounds, FOLLOWS_PAGE_SIZE));
  const ids = edges.map((e) => e.followerId);
  return collectionPage(apUrls.followers(username), bounds, { newest: ids[0], oldest: ids.at(-1) }, await actorUris(ids));
}

export async function followingDocument(username: string): Promise<ApObject> {
  const account = await localAccountNamed(username);
  const following = apUrls.following(username);
  return orderedCollection(following, account.followingCount, account.hideCollections ? undefined : { first: pageUrl(following) });
}

/** One page of the accounts followed, as actor URIs, newest account id first. */
export async function followingPageDocument(username: string, bounds: PageParams): Promise<ApObject> {
  const account = await localAccountNamed(username);
  if (account.hideCollections) throw forbidden();
  const edges = await followingPage(account.id, pageOf(bounds, FOLLOWS_PAGE_SIZE));
  const ids = edges.map((e) => e.followedId);
  return collectionPage(apUrls.following(username), bounds, { newest: ids[0], oldest: ids.at(-1) }, await actorUris(ids));
}

/** The pinned statuses that anyone may read, as Notes, in one collection. */
export async function featuredDocument(username: string): Promise<ApObject> {
  const account = await localAccountNamed(username);
  const ids = await pinnedStatusIds(account.id, { limit: FEATURED_LIMIT });
  const found = await statusesByIds(ids);
  const pinned = ids.flatMap((id) => {
    const status = found.get(id);
    return status && status.accountId === account.id && !status.reblogOfId && openToAnyone(status) ? [status] : [];
  });
  const sources = await noteSources(pinned);
  return orderedCollectionWithItems(apUrls.featured(username), pinned.map((s) => noteOf(s, account, sources)));
}

/** The instance actor's outbox: it posts nothing. */
export const instanceOutboxDocument = (): ApObject => orderedCollectionWithItems(apUrls.instanceOutbox(), []);

// ---- the web pages' reads ----

/** How many of an account's latest public statuses its HTML page shows. */
export const PROFILE_PAGE_STATUSES = 5;

/** The latest public statuses (not reblogs) of a local account, for its HTML page. */
export const recentPublicStatuses = (account: Account): Promise<Status[]> =>
  accountStatusesPage(account.id, { limit: PROFILE_PAGE_STATUSES }, { excludeReblogs: true }, async (batch) => batch.filter(isPublic));

/** A status of `username` for its HTML page: only one anyone may read (a browser does not sign its requests). */
export async function publicStatusOf(username: string, id: string): Promise<{ status: Status; author: Account }> {
  const author = await localAccountNamed(username);
  const status = await servedStatus(author, id, async () => undefined);
  if (status.reblogOfId) throw notFound();
  return { status, author };
}
