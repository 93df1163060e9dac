// What a moderator's sanction on one account means for everyone else (Mastodon 4.3's
// Account#suspended?/#silenced?, StatusPolicy#show?, StatusFilter#silenced_account?,
// PublicFeed's without_suspended.without_silenced, NotifyService#from_limited?):
// - suspended: the account is gone for everyone but itself: its profile is emptied, its
//   statuses answer 404 and leave every list, its notifications, stream events and pushes stop;
// - silenced (limited): off the public and hashtag timelines and streams and trends for everyone,
//   off search for those who do not follow it, its notifications reach only its followers;
// - sensitized: its statuses with media are shown sensitive.
// The operator's domain sanctions (instance_domains.ts) compose here: an account on a silenced or
// suspended server is limited as a silenced account is. Every decision is taken from an account
// item the caller has already read (a page's authors come in the render's batch read); the only
// reads made here are follow edges, and only when a limited author is on the page.
import { accountById, accountsByIds, type Account } from '../db/accounts';
import { followEdges } from '../db/follows';
import { knowItem } from '../db/known_items';
import * as keys from '../db/keys';
import type { Status } from '../db/statuses';
import { isSilencedAccount } from './instance_domains';
import { entersPublicTimelines } from './visibility';

type Sanctioned = Pick<Account, 'id' | 'domain' | 'silencedAt' | 'suspendedAt'>;

/** Is the account suspended (by a moderator here, or by its own server)? */
export const isSuspended = (account: Pick<Account, 'suspendedAt'>): boolean => account.suspendedAt !== null;

/** Is the account silenced by a moderator (Account#silenced?)? The flag the Account entity shows as `limited`. */
export const isSilenced = (account: Pick<Account, 'silencedAt'>): boolean => account.silencedAt !== null;

/** Is the account gone for `viewerId`: suspended, and not the viewer itself? */
export const goneFor = (account: Pick<Account, 'id' | 'suspendedAt'>, viewerId: string | undefined): boolean =>
  isSuspended(account) && account.id !== viewerId;

/** Is the account limited: silenced, suspended, or on a server the operator silenced or suspended? */
export const isLimited = async (account: Sanctioned): Promise<boolean> =>
  isSilenced(account) || isSuspended(account) || (await isSilencedAccount(account));

/** Is the account's media to be shown sensitive whatever it says (Account#sensitized?)? */
export const isSensitized = (account: Pick<Account, 'sensitizedAt'>): boolean => account.sensitizedAt !== null;

/** Is a status shown sensitive: as its author marked it, or with media by a sensitized author? */
export const shownSensitive = (status: Pick<Status, 'sensitive' | 'mediaIds'>, author: Pick<Account, 'sensitizedAt'>): boolean =>
  status.sensitive || (isSensitized(author) && status.mediaIds.length > 0);

/** Is a new status of `author` to be stored sensitive (a sensitized author's post with media)? */
export const storedSensitive = (sensitive: boolean, mediaCount: number, author: Pick<Account, 'sensitizedAt'>): boolean =>
  sensitive || (isSensitized(author) && mediaCount > 0);

/** Does a status of `author` enter the public and hashtag timelines and streams? Not a limited author's. */
export const authorListedPublicly = async (author: Sanctioned): Promise<boolean> => !(await isLimited(author));

/** Is a newly stored status listed in the public timelines: one that enters them, of an author neither limited nor on a blocked server? */
export const listedInPublicTimelines = async (status: Parameters<typeof entersPublicTimelines>[0], author: Sanctioned): Promise<boolean> =>
  entersPublicTimelines(status) && (await authorListedPublicly(author));

/** The accounts of a list (followers, following, favourited_by, directory, ...) others may see: none suspended. */
export const withoutSuspended = <A extends Pick<Account, 'id' | 'suspendedAt'>>(accounts: A[], viewerId?: string): A[] =>
  accounts.filter((a) => !goneFor(a, viewerId));

/**
 * The account of a status read alone (show, context, favourited_by, reblogged_by), for the 404 a suspended
 * author's status answers. One GetItem, recorded for this invocation so the render reads it no more.
 */
export async function authorShown(status: Pick<Status, 'accountId'>, viewerId: string | undefined): Promise<boolean> {
  const author = await accountById(status.accountId);
  knowItem(keys.account(status.accountId), author);
  return author !== undefined && !goneFor(author, viewerId);
}

/** Where a rendered page of statuses is shown, as far as sanctions care. */
export type SanctionPlace = 'public' | 'search' | 'other';

/**
 * Of a page of statuses whose authors the caller has read (`authorOf`), the ids to leave out for `viewer`:
 * a suspended author's (for everyone but itself); in public places (public and hashtag timelines, trends)
 * a limited author's for everyone but itself; in search a limited author's for those who do not follow it.
 * Reads the viewer's follow edges to the limited authors only in search, and only when there are some.
 */
export async function sanctionedOut(statuses: Status[], authorOf: (s: Status) => Sanctioned | undefined, viewer: Pick<Account, 'id'> | undefined, place: SanctionPlace): Promise<Set<string>> {
  const out = new Set<string>();
  const limited: Status[] = [];
  for (const s of statuses) {
    const author = authorOf(s);
    if (!author || author.id === viewer?.id) continue;
    if (goneFor(author, viewer?.id)) out.add(s.id);
    else if (place !== 'other' && (await isLimited(author))) limited.push(s);
  }
  if (limited.length === 0) return out;
  const follows = place === 'search' && viewer ? await followEdges(viewer.id, [...new Set(limited.map((s) => s.accountId))]) : new Map<string, unknown>();
  for (const s of limited) if (!follows.has(s.accountId)) out.add(s.id);
  return out;
}

/**
 * Is a notification from `actorId` to `recipientId` not to be created at all: the actor is suspended? A limited
 * actor's notifications are the recipient's notification policy's to filter (for_limited_accounts, limitedFor).
 * One read of the actor's account.
 */
export async function limitedSender(recipientId: string, actorId: string): Promise<boolean> {
  const actor = await accountById(actorId);
  return actor !== undefined && actor.id !== recipientId && isSuspended(actor);
}

/** Does the notification policy's `for_limited_accounts` apply: a limited actor the recipient does not follow? */
export async function limitedFor(recipientId: string, actor: Sanctioned, notFollowing: () => Promise<boolean>): Promise<boolean> {
  return (await isLimited(actor)) && (await notFollowing());
}

/**
 * Does a status of these authors (its author, and a reblog's original author) go to nobody's home, list or
 * stream: is one of them suspended? One batch read of the authors, once per fan-out page.
 */
export async function hasSuspendedAuthor(authorIds: string[]): Promise<boolean> {
  const authors = await accountsByIds(authorIds);
  return [...authors.values()].some(isSuspended);
}

/** Is `account` gone for `viewer` (suspended, and the viewer is not the account itself)? */
export const unavailableTo = (account: Pick<Account, 'id' | 'suspendedAt'>, viewer: Pick<Account, 'id'> | undefined): boolean =>
  goneFor(account, viewer?.id);

/** The accounts of a list (endorsements, ...) `viewer` may see: none suspended but itself. */
export const availableTo = <A extends Pick<Account, 'id' | 'suspendedAt'>>(accounts: A[], viewer: Pick<Account, 'id'> | undefined): A[] =>
  withoutSuspended(accounts, viewer?.id);

/** The accounts of the profile directory and of suggestions (Account.discoverable): none suspended, none silenced. */
export const listedInDirectory = <A extends Pick<Account, 'suspendedAt' | 'silencedAt'>>(accounts: A[]): A[] =>
  accounts.filter((a) => !isSuspended(a) && !isSilenced(a));

/**
 * The accounts of a search `viewer` may see: none suspended (but the one named exactly by `query`), and a silenced one
 * only if the viewer follows it (or is it).
 * The follow edges are read only when a silenced account is among them: the ordinary search reads nothing more.
 */
export async function searchableBy<A extends Pick<Account, 'id' | 'suspendedAt' | 'silencedAt' | 'username' | 'domain'>>(
  accounts: A[],
  viewer: Pick<Account, 'id'> | undefined,
  query = '',
): Promise<A[]> {
  // A suspended account is found by its exact name only (shown suspended, as lookup shows it), never by a prefix.
  const wanted = query.trim().replace(/^@/, '').toLowerCase();
  const named = (a: A) => wanted !== '' && (a.domain ? `${a.username}@${a.domain}` : a.username).toLowerCase() === wanted;
  const available = accounts.filter((a) => named(a) || !unavailableTo(a, viewer));
  const limited = available.filter((a) => isSilenced(a) && a.id !== viewer?.id).map((a) => a.id);
  if (limited.length === 0) return available;
  const followed = viewer ? await followEdges(viewer.id, limited) : new Map();
  return available.filter((a) => !limited.includes(a.id) || followed.has(a.id));
}
