// Search across servers (GET /api/v2/search, GET /api/v1/accounts/search): a
// query that names a remote account (`@user@domain`, `user@domain`) or is the
// URL of a remote profile or post. Known ones answer from storage always; with
// `resolve=true` (Mastodon asks for a user token for that, as our search
// endpoints do) an unknown one is looked up on its server (WebFinger, a signed
// GET) and stored. A server that cannot be reached finds nothing: never an error.
import type { Account } from '../db/accounts';
import { remoteAccountByAcct, remoteAccountByUri, remoteStatusIdByUri } from '../db/remote';
import { statusById, type Status } from '../db/statuses';
import { accountByActorUri, ACTOR_TYPES, isLocalDomain, resolveAcct, saveActorDocument } from '../federation/actors';
import { FetchFailed, fetchObject } from '../federation/fetch';
import { storeRemoteNote } from '../federation/notes';
import { isLocalUrl } from '../federation/urls';
import { httpUrl, idsOf, typeOf, type ApDocument } from '../federation/vocab';
import { isAcctUsername, normalizeDomain } from '../federation/webfinger';
import { log } from '../log';
import { isVisible, visibleTo } from '../policy';

export type Resolved = { accounts: Account[]; statuses: Status[] };

const NOTHING: Resolved = { accounts: [], statuses: [] };
const OBJECT_TYPES = ['Note', 'Article', 'Page', 'Question'];

/** `@user@domain` or `user@domain` naming another server; undefined for anything else. */
export function remoteAcctOf(q: string): { username: string; domain: string } | undefined {
  const parts = q.trim().replace(/^@/, '').split('@');
  if (parts.length !== 2) return undefined;
  const [username, rawDomain] = parts as [string, string];
  const domain = normalizeDomain(rawDomain);
  if (!domain || !isAcctUsername(username) || isLocalDomain(domain)) return undefined;
  return { username, domain };
}

/** The query as an http(s) URL (the whole query, nothing around it); undefined otherwise. */
export const urlQueryOf = (q: string): string | undefined => {
  const trimmed = q.trim();
  return /^https?:\/\/\S+$/i.test(trimmed) ? httpUrl(trimmed) : undefined;
};

/** `fn`'s answer, or undefined when the other server could not be asked or answered nothing usable. */
async function unlessUnreachable<T>(what: string, fn: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof FetchFailed)) throw err;
    log.info('search: could not resolve', { what, reason: err.reason });
    return undefined;
  }
}

/** A fetched post: its author read (or fetched) first, then the post stored as theirs. */
async function storeFetchedObject(doc: ApDocument): Promise<Status | undefined> {
  const authorUri = idsOf(doc.attributedTo)[0];
  if (!authorUri) return undefined;
  const author = await accountByActorUri(authorUri);
  return author ? storeRemoteNote(doc, author) : undefined;
}

/** What a URL names: a stored account or status, or (with resolve) the document fetched and stored. */
async function byUrl(url: string, resolve: boolean): Promise<Resolved> {
  const account = await remoteAccountByUri(url);
  if (account) return { accounts: [account], statuses: [] };
  const statusId = await remoteStatusIdByUri(url);
  const stored = statusId ? await statusById(statusId) : undefined;
  if (stored) return { accounts: [], statuses: [stored] };
  if (!resolve || isLocalUrl(url)) return NOTHING;
  const doc = await unlessUnreachable(url, () => fetchObject(url));
  if (!doc) return NOTHING;
  const type = typeOf(doc) ?? '';
  if ((ACTOR_TYPES as readonly string[]).includes(type)) {
    const saved = await saveActorDocument(doc);
    return saved ? { accounts: [saved], statuses: [] } : NOTHING;
  }
  if (OBJECT_TYPES.includes(type)) {
    const status = await unlessUnreachable(url, () => storeFetchedObject(doc));
    return status ? { accounts: [], statuses: [status] } : NOTHING;
  }
  return NOTHING;
}

/**
 * The remote account or post a query names, as `viewer` may see them; empty when the query
 * names none (a plain word, a local account: the local search answers those).
 */
export async function resolveQuery(viewer: Account, q: string, opts: { resolve: boolean }): Promise<Resolved> {
  const acct = remoteAcctOf(q);
  let found = NOTHING;
  if (acct) {
    const account = opts.resolve
      ? await unlessUnreachable(`${acct.username}@${acct.domain}`, () => resolveAcct(acct.username, acct.domain))
      : await remoteAccountByAcct(acct.username, acct.domain);
    found = { accounts: account ? [account] : [], statuses: [] };
  } else {
    const url = urlQueryOf(q);
    if (url) found = await byUrl(url, opts.resolve);
  }
  return {
    accounts: found.accounts.filter(isVisible),
    statuses: found.statuses.length > 0 ? await visibleTo(viewer, found.statuses, 'search') : [],
  };
}
