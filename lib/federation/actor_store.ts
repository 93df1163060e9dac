// Remote actors: fetched, parsed (the variants real peers send), stored as remote
// accounts, refreshed when older than a day.
//
// What follows a save is the caller's (actorStore): ./actors.ts, what the rest of the
// code imports, reads the saved account's featured collection (./featured.ts, which
// stores Notes); a signature check (lookupKey) and a lookup that never fetches read
// none, so the endpoints that only verify signatures carry none of that.
//
// An actor document is read leniently (a value or an array, a URL string or a
// Link object, as ./vocab.ts reads them) but trusted narrowly: its id must be
// on the origin it was fetched from, its key must belong to it, its HTML is
// sanitised (./sanitize.ts), and none of our own URLs is ever stored as remote.
import { config } from '../config';
import { accountByUsername, accountItem, type Account } from '../db/accounts';
import { syncDirectoryListing } from '../db/directory';
import { createRemoteAccount, remoteAccountByAcct, remoteAccountByUri, updateRemoteAccount } from '../db/remote';
import { nowIso } from '../db/table';
import { newId } from '../ids';
import { log } from '../log';
import { readActorEmojiTags } from './emoji_tags';
import { FetchFailed, fetchObject } from './fetch';
// A longer link or image URL is not kept; an actor id that long is refused (the guard's own bound).
import { MAX_URL_LENGTH, passesUrlRules } from './guard';
import { KeyFetchRefused } from './key_gate';
import { requestProfileImageCopies, staleProfileCopies } from './media_requests';
import { boundedRemoteHtml, headOf, htmlToText, truncateUtf8, withoutControls } from './sanitize';
import type { KeyLookup } from './signatures';
import { ACTOR_TYPES, isActorType, keyOf, REFETCH_AT_MOST_EVERY_MS, sameOrigin } from './signer_keys';
import { apUrls, isLocalUrl } from './urls';
import { asArray, dateOf, httpUrl, idOf, objectOf, textOf, typeOf, urlOf, type ApDocument } from './vocab';
import { isAcctUsername, normalizeDomain, webfinger } from './webfinger';

export { ACTOR_TYPES, REFETCH_AT_MOST_EVERY_MS };

/** A stored actor older than this is fetched again when next needed. */
export const REFRESH_AFTER_MS = 24 * 3600_000;

// Bounds in UTF-8 bytes, so that an account item stays far under DynamoDB's 400 KB whatever the script: at most
// 1,000 (name) + 50,000 (bio) + 16 × (2 × 1,000 + 4,000 + 2,047) (fields, named twice, their HTML and text)
// + 20 emoji of ~2,200 + 10 URLs of ≤ 2,000 + a key of ≤ 10,000: about 240,000 bytes.
const MAX_DISPLAY_NAME = 1_000;
const MAX_NOTE_HTML = 50_000;
const MAX_FIELDS = 16;
const MAX_FIELD_NAME = 1_000;
const MAX_FIELD_VALUE_HTML = 4_000;
const MAX_FIELD_VALUE = 2_047;
/** An avatar's or header's description (Mastodon's limit for image descriptions), and the sites an actor names for attribution. */
const MAX_IMAGE_DESCRIPTION = 1_500;
const MAX_ATTRIBUTION_DOMAINS = 10;

/** Why a document is not an actor we store. */
export class InvalidActor extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidActor';
  }
}

/** What an actor document says, in the remote account's terms. */
export type ParsedActor = Pick<
  Account,
  | 'uri' | 'username' | 'domain' | 'displayName' | 'noteHtml' | 'fields' | 'fieldsHtml' | 'url' | 'actorType' | 'locked' | 'bot'
  | 'discoverable' | 'inboxUrl' | 'sharedInboxUrl' | 'outboxUrl' | 'followersUrl' | 'followingUrl' | 'featuredUrl'
  | 'publicKeyId' | 'publicKeyPem' | 'avatarRemoteUrl' | 'headerRemoteUrl' | 'emojis'
  | 'indexable' | 'attributionDomains' | 'avatarDescription' | 'headerDescription' | 'showFeatured' | 'showMedia' | 'showMediaReplies'
> & { uri: string; domain: string; published: string | null };

/** A link-valued property (a URL string or an object with an id), as an http(s) URL or null. */
const linkOf = (value: unknown): string | null => bounded(httpUrl(idOf(value)));

const bounded = (url: string | undefined): string | null => (url && url.length <= MAX_URL_LENGTH ? url : null);

/**
 * An image property (`icon`, `image`): an Image object or an array of them, or a bare URL. One the address guard
 * would refuse is no image: the default is shown rather than a URL pointing into the viewer's network.
 */
const imageOf = (value: unknown): string | null => {
  for (const v of asArray(value)) {
    const found = bounded(typeof v === 'string' ? httpUrl(v) : urlOf(objectOf(v)?.url));
    if (found && passesUrlRules(found)) return found;
  }
  return null;
};

/** An image's description (Mastodon 4.6 sends it as the Image's `name`; `summary` is read too), as plain text. */
const imageDescriptionOf = (value: unknown): string => {
  const image = objectOf(asArray(value)[0]);
  const text = image ? (textOf(image, 'name') ?? textOf(image, 'summary')) : undefined;
  return text ? truncateUtf8(withoutControls(text).trim(), MAX_IMAGE_DESCRIPTION) : '';
};

/** The sites that may credit the actor (Mastodon's attributionDomains): host names, at most MAX_ATTRIBUTION_DOMAINS. */
const attributionDomainsOf = (value: unknown): string[] =>
  [...new Set(asArray(value).filter((d): d is string => typeof d === 'string' && d.length <= 253 && /^[a-z0-9.-]+$/i.test(d)).map((d) => d.toLowerCase()))].slice(0, MAX_ATTRIBUTION_DOMAINS);

/** Control characters out (a line break or tab too: a name is one line), bounded in bytes: names are shown as text. */
const plainText = (text: string, maxBytes: number) => truncateUtf8(withoutControls(text.replace(/[\t\n\r]/g, ' ')).trim(), maxBytes);

function fieldsOf(doc: ApDocument): Pick<Account, 'fields' | 'fieldsHtml'> {
  const fields: Account['fields'] = [];
  const fieldsHtml: Account['fieldsHtml'] = [];
  for (const item of asArray(doc.attachment)) {
    const entry = objectOf(item);
    if (!entry || typeOf(entry) !== 'PropertyValue' || typeof entry.name !== 'string' || typeof entry.value !== 'string') continue;
    const name = plainText(entry.name, MAX_FIELD_NAME);
    // Sanitising reads the whole value: what is far beyond the bound is not read.
    const html = boundedRemoteHtml(headOf(entry.value, MAX_FIELD_VALUE_HTML * 4), MAX_FIELD_VALUE_HTML);
    fields.push({ name, value: truncateUtf8(htmlToText(html), MAX_FIELD_VALUE) });
    fieldsHtml.push({ name, value: html, verifiedAt: null });
    if (fields.length === MAX_FIELDS) break;
  }
  return { fields, fieldsHtml };
}

/** Reads an actor document as real peers send it; throws InvalidActor. */
export function parseActor(doc: ApDocument, opts: { keyId?: string } = {}): ParsedActor {
  const type = typeOf(doc);
  if (!type || !(ACTOR_TYPES as readonly string[]).includes(type)) throw new InvalidActor(`type ${JSON.stringify(type ?? null)} is not an actor`);
  const uri = httpUrl(doc.id);
  if (!uri || uri !== doc.id) throw new InvalidActor('id is not an http(s) URL');
  if (uri.length > MAX_URL_LENGTH) throw new InvalidActor('id is too long');
  if (isLocalUrl(uri)) throw new InvalidActor('id is one of our own URLs');
  const username = typeof doc.preferredUsername === 'string' ? doc.preferredUsername.trim() : '';
  if (!isAcctUsername(username)) throw new InvalidActor('preferredUsername is missing or not a username');
  const key = keyOf(doc, uri, opts.keyId);
  const name = textOf(doc, 'name');
  const summary = textOf(doc, 'summary');
  const published = dateOf(doc.published);
  return {
    uri,
    username,
    domain: new URL(uri).host.toLowerCase(),
    displayName: name ? plainText(name, MAX_DISPLAY_NAME) : '',
    noteHtml: summary ? boundedRemoteHtml(headOf(summary, MAX_NOTE_HTML * 4), MAX_NOTE_HTML) : '',
    ...fieldsOf(doc),
    url: bounded(urlOf(doc.url)),
    actorType: type,
    locked: doc.manuallyApprovesFollowers === true,
    bot: type === 'Service' || type === 'Application',
    discoverable: doc.discoverable === true,
    inboxUrl: linkOf(doc.inbox),
    sharedInboxUrl: linkOf(objectOf(doc.endpoints)?.sharedInbox),
    outboxUrl: linkOf(doc.outbox),
    followersUrl: linkOf(doc.followers),
    followingUrl: linkOf(doc.following),
    featuredUrl: linkOf(doc.featured),
    publicKeyId: key?.publicKeyId ?? null,
    publicKeyPem: key?.publicKeyPem ?? null,
    avatarRemoteUrl: imageOf(doc.icon),
    headerRemoteUrl: imageOf(doc.image),
    emojis: readActorEmojiTags(doc),
    indexable: doc.indexable === true,
    attributionDomains: attributionDomainsOf(doc.attributionDomains),
    avatarDescription: imageDescriptionOf(doc.icon),
    headerDescription: imageDescriptionOf(doc.image),
    // Absent is shown, as Mastodon defaults them.
    showFeatured: doc.showFeatured !== false,
    showMedia: doc.showMedia !== false,
    showMediaReplies: doc.showRepliesInMedia !== false,
    published: published ? published.toISOString() : null,
  };
}

/** The profile attributes a refetch or an Update(Person) replaces (the handle and the id stay). */
function profileOf(actor: ParsedActor, fetchedAt: string) {
  const { uri: _uri, domain: _domain, username: _username, published: _published, ...profile } = actor;
  return { ...profile, fetchedAt, updatedAt: fetchedAt };
}

/** Suspended by our moderators: nothing is fetched from it any more while it lasts. */
const suspendedHere = (account: Account) => account.suspendedAt !== null && account.suspensionOrigin !== 'remote';

const isStale = (account: Account, now = Date.now()) => !account.fetchedAt || now - Date.parse(account.fetchedAt) > REFRESH_AFTER_MS;
const fetchedWithin = (account: Account, ms: number, now = Date.now()) => !!account.fetchedAt && now - Date.parse(account.fetchedAt) < ms;
const isGone = (err: unknown) => err instanceof FetchFailed && (err.status === 404 || err.status === 410);

/** A local account from one of our actor URLs (`/users/:username`). */
async function localActor(uri: string): Promise<Account | undefined> {
  const path = new URL(uri).pathname;
  const match = /^\/users\/([^/]+)$/.exec(path);
  if (!match) return undefined;
  const username = decodeURIComponent(match[1]!);
  return apUrls.actor(username) === uri.replace(/[?#].*$/, '') ? accountByUsername(username) : undefined;
}

/** Is `domain` (host[:port]) this instance's? Its LOCAL_DOMAIN with or without the port, as lib/accounts/lookup.ts reads handles, or BASE_URL's host. */
export function isLocalDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  const local = config.domain.toLowerCase();
  return d === local || d === local.split(':')[0] || d === new URL(config.baseUrl).host.toLowerCase();
}

/** GETs an ActivityPub document (./fetch.ts fetchObject, or the same behind a gate); throws FetchFailed. */
export type FetchDocument = (url: string) => Promise<ApDocument>;

/** What follows the save of an actor's account (its featured collection read, or nothing); answers the account. */
export type AfterSave = (account: Account) => Promise<Account>;

/** The functions that may save an actor, each save followed by `afterSave`. */
export function actorStore(afterSave: AfterSave) {
  /**
   * Creates or updates the remote account of an actor document (fetched, or the object of an
   * Update(Person)). `fetchedFrom`: where it came from, whose origin its id must share.
   * `keyId`: the key to keep when it has several. Undefined when it is not an acceptable actor.
   */
  async function saveActorDocument(doc: ApDocument, opts: { fetchedFrom?: string; keyId?: string } = {}): Promise<Account | undefined> {
    let actor: ParsedActor;
    try {
      actor = parseActor(doc, { keyId: opts.keyId });
    } catch (err) {
      if (!(err instanceof InvalidActor)) throw err;
      log.info('actor document ignored', { id: typeof doc.id === 'string' ? doc.id : undefined, reason: err.reason });
      return undefined;
    }
    if (opts.fetchedFrom !== undefined && !sameOrigin(actor.uri, opts.fetchedFrom)) {
      log.info('actor document ignored', { id: actor.uri, reason: `not on the origin of ${opts.fetchedFrom}` });
      return undefined;
    }
    const now = nowIso();
    const existing = await remoteAccountByUri(actor.uri);
    if (existing) {
      // A changed avatar or header shows from its server until copied here (./media_requests.ts).
      const updated = await updateRemoteAccount(existing.id, { ...profileOf(actor, now), ...staleProfileCopies(existing, actor) });
      if (updated) await requestProfileImageCopies(updated, existing);
      // Rewritten on every save of a discoverable actor, so actors stored before the directory existed join it at their next refresh.
      if (updated && (updated.discoverable || existing.discoverable)) await syncDirectoryListing(existing, updated);
      return updated && afterSave(updated);
    }
    const { published, ...fields } = actor;
    const account = accountItem.parse({ ...fields, id: newId(), createdAt: published ?? now, updatedAt: now, fetchedAt: now });
    if (await createRemoteAccount(account)) {
      await requestProfileImageCopies(account);
      if (account.discoverable) await syncDirectoryListing(undefined, account);
      return afterSave(account);
    }
    // Stored meanwhile by another worker: that one stands.
    const stored = await remoteAccountByUri(actor.uri);
    if (!stored) log.warn('remote handle already held by another actor', { id: actor.uri, acct: `${actor.username}@${actor.domain}` });
    return stored;
  }

  /**
   * The stored account, refetched (keeping the key `keyId` if it has several); a failed refetch keeps the stored one (logged).
   * `fetchDocument`: how the document is fetched (a signature check's goes through its gate, ./key_gate.ts).
   */
  async function refetch(stored: Account, keyId = stored.publicKeyId ?? undefined, fetchDocument: FetchDocument = fetchObject): Promise<Account> {
    try {
      const doc = await fetchDocument(stored.uri!);
      // A document about another actor (a moved or recycled id) does not replace this one.
      if (doc.id !== stored.uri) return stored;
      return (await saveActorDocument(doc, { fetchedFrom: stored.uri!, keyId })) ?? stored;
    } catch (err) {
      if (!(err instanceof FetchFailed)) throw err;
      log.info('actor refresh failed; the stored one stands', { uri: stored.uri, reason: err.reason });
      return stored;
    }
  }

  /**
   * The account of an actor URI: a local account for one of our URLs, a stored remote
   * account, or (unless `fetch: false`) fetched and stored now; `refresh` refetches a stored one
   * (not twice within a minute). A stored one older than a day is refetched when fetching is allowed.
   * Undefined when there is no such actor (404/410, not an actor); throws FetchFailed when its
   * server cannot be asked now.
   */
  async function accountByActorUri(uri: string, opts: { fetch?: boolean; refresh?: boolean; fetchDocument?: FetchDocument } = {}): Promise<Account | undefined> {
    if (!httpUrl(uri)) return undefined;
    if (isLocalUrl(uri)) return localActor(uri);
    const mayFetch = opts.fetch !== false;
    const stored = await remoteAccountByUri(uri);
    if (stored) {
      // Suspended by our moderators: nothing is fetched from it any more (as long as the suspension holds).
      if (suspendedHere(stored)) return stored;
      const due = opts.refresh ? !fetchedWithin(stored, REFETCH_AT_MOST_EVERY_MS) : isStale(stored);
      return mayFetch && due ? refetch(stored, undefined, opts.fetchDocument) : stored;
    }
    if (!mayFetch) return undefined;
    let doc: ApDocument;
    try {
      doc = await (opts.fetchDocument ?? fetchObject)(uri);
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
    return saveActorDocument(doc);
  }

  /**
   * Finds (WebFinger, then the actor) and stores `username@domain`; undefined when it does not exist.
   * A known account answers from storage (refetched when older than a day). Throws FetchFailed
   * when the server cannot be asked now.
   */
  async function resolveAcct(username: string, domain: string): Promise<Account | undefined> {
    const host = normalizeDomain(domain);
    if (!host || !isAcctUsername(username)) return undefined;
    if (isLocalDomain(host)) return accountByUsername(username);
    const stored = await remoteAccountByAcct(username, host);
    if (stored) return isStale(stored) && !suspendedHere(stored) ? refetch(stored) : stored;
    const uri = await webfinger(username, host);
    return uri ? accountByActorUri(uri) : undefined;
  }

  return { saveActorDocument, refetch, accountByActorUri, resolveAcct };
}

/**
 * The store that reads no featured collection: signature checks (a request waits on them) and lookups that never fetch.
 * (`@__PURE__`: building it has no effect, so a bundle that uses none of it leaves it, and the parsing it carries, out.)
 */
export const withoutPins = /* @__PURE__ */ actorStore(async (account) => account);

// Key ids that are not `<actor>#fragment` (a key document of its own, as GoToSocial serves
// them) cannot be found in storage by the actor's URI: their owners are remembered here,
// per process, so that only the first request of each container fetches the key document.
const KEY_OWNERS_MAX = 5000;
const keyOwners = new Map<string, string>();
const rememberOwner = (keyId: string, owner: string) => {
  if (keyOwners.size >= KEY_OWNERS_MAX) keyOwners.delete(keyOwners.keys().next().value!);
  keyOwners.set(keyId, owner);
};

/** The account owning `keyId`, from the key's own document when it is not a stored actor's URI. */
async function keyOwnerByFetch(keyId: string, fetchDocument: FetchDocument): Promise<Account | undefined> {
  const docUrl = keyId.replace(/#.*$/, '');
  const doc = await fetchDocument(docUrl);
  if (isActorType(doc) && doc.id === docUrl) return withoutPins.saveActorDocument(doc, { fetchedFrom: docUrl, keyId });
  // A key document naming its owner, or a stub of the actor served at the key's URL: the
  // owner, on the key's origin, is the actor to read.
  const owner = isActorType(doc) ? idOf(doc.id) : idOf(doc.owner);
  if (!owner || !httpUrl(owner) || !sameOrigin(owner, keyId)) return undefined;
  return withoutPins.accountByActorUri(owner, { fetchDocument });
}

/**
 * The KeyLookup verifyRequest uses: the key's actor from storage, fetched (and stored as its
 * account) when unknown, older than a day, holding another key, or on `refresh` (a signature
 * failed: the key may have been rotated; not refetched twice within a minute). Undefined when
 * the key cannot be found, its server cannot be asked now included (the sender retries).
 *
 * Inside a signature check (an HTTP request waits on it), an actor saved has its featured collection read
 * later (its next refresh, an Update, an Add), not now: up to seven more requests would hold up the request.
 * `fetchDocument`: how its documents are fetched (the inbox's goes through ./key_gate.ts).
 */
export const lookupKey = async (
  keyId: string,
  { refresh, fetchDocument = fetchObject }: { refresh: boolean; fetchDocument?: FetchDocument },
): ReturnType<KeyLookup> => {
  if (!httpUrl(keyId) || isLocalUrl(keyId)) return undefined;
  try {
    let account = await remoteAccountByUri(keyOwners.get(keyId) ?? keyId.replace(/#.*$/, ''));
    if (!account) account = await keyOwnerByFetch(keyId, fetchDocument);
    if (!account?.uri) return undefined;
    const due = refresh || isStale(account) || account.publicKeyId !== keyId;
    if (due && !fetchedWithin(account, REFETCH_AT_MOST_EVERY_MS)) account = await withoutPins.refetch(account, keyId, fetchDocument);
    if (account.publicKeyId !== keyId || !account.publicKeyPem) return undefined;
    if (account.uri !== keyId.replace(/#.*$/, '')) rememberOwner(keyId, account.uri!);
    return { publicKeyPem: account.publicKeyPem, ownerUri: account.uri! };
  } catch (err) {
    // The gate's refusal (a 503 to retry, a 429) is the request's answer, not an unknown key.
    if (err instanceof KeyFetchRefused) throw err.answer;
    if (err instanceof FetchFailed) {
      log.info('key lookup failed', { keyId, reason: err.reason });
      return undefined;
    }
    throw err;
  }
};
