// ActivityPub documents of local things: Person, the instance actor (Application),
// Note, Create, Announce, Tombstone and the collections, in the shapes Mastodon
// serves them (https://docs.joinmastodon.org/spec/activitypub/). Pure of HTTP:
// the inbox, delivery and the endpoints all render through here. A Note needs
// a few records besides its status (attachments, mentioned accounts, the parent,
// custom emoji): `noteSources` reads them for a whole page in one round of batch
// reads, and `noteOf` renders from what it read.
import { config } from '../config';
import { accountsByIds, type Account } from '../db/accounts';
import { emojisByShortcodes, type Emoji } from '../db/emojis';
import { mediaByIds, type Media } from '../db/media';
import { pollsByIds, type Poll } from '../db/polls';
import { statusesByIds, type Status } from '../db/statuses';
import { mediaUrl } from '../media/storage';
import { isSuspended, quotePolicyOf, statusAddressing } from '../policy';
import { shortcodesIn, shortcodesOfEach } from '../render/emoji';
import { instancePublicKey, publicKeyOf } from './keys';
import { questionFields } from './polls';
import { AS_PUBLIC, apUrls } from './urls';
import { quoteAuthorizationId } from './quote_ids';

export type ApObject = Record<string, unknown>;

export const AP_CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'] as const;

/**
 * The terms of Mastodon's extension vocabulary (`toot:`, schema.org's PropertyValue)
 * that our documents use, so that a JSON-LD processor expands them the same way
 * Mastodon's own documents expand; peers that read plain JSON ignore it.
 */
const EXTENSIONS = {
  manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
  sensitive: 'as:sensitive',
  Hashtag: 'as:Hashtag',
  toot: 'http://joinmastodon.org/ns#',
  featured: { '@id': 'toot:featured', '@type': '@id' },
  discoverable: 'toot:discoverable',
  indexable: 'toot:indexable',
  attributionDomains: { '@id': 'toot:attributionDomains', '@type': '@id' },
  showFeatured: 'toot:showFeatured',
  showMedia: 'toot:showMedia',
  showRepliesInMedia: 'toot:showRepliesInMedia',
  Emoji: 'toot:Emoji',
  blurhash: 'toot:blurhash',
  focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
  schema: 'http://schema.org#',
  PropertyValue: 'schema:PropertyValue',
  value: 'schema:value',
  votersCount: 'toot:votersCount',
  // Quote posts (FEP-044f, as Mastodon 4.5 names them), with the older names other servers read.
  quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
  quoteUri: 'http://fedibird.com/ns#quoteUri',
  _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
  quoteAuthorization: { '@id': 'https://w3id.org/fep/044f#quoteAuthorization', '@type': '@id' },
  gts: 'https://gotosocial.org/ns#',
  interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
  canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
  automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
  manualApproval: { '@id': 'gts:manualApproval', '@type': '@id' },
  // Collections of accounts (Mastodon 4.6): who may feature the actor, and its collections.
  canFeature: { '@id': 'gts:canFeature', '@type': '@id' },
  featuredCollections: { '@id': 'toot:featuredCollections', '@type': '@id' },
  FeaturedCollection: 'toot:FeaturedCollection',
  FeaturedItem: 'toot:FeaturedItem',
  featuredObject: { '@id': 'toot:featuredObject', '@type': '@id' },
  featuredObjectType: 'toot:featuredObjectType',
  topic: 'toot:topic',
} as const;

/** The @context of every document we serve or send. */
export const DOCUMENT_CONTEXT = [...AP_CONTEXT, EXTENSIONS] as const;

// ---- small shapes ----

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** The media type of a stored image, from the extension its key was given when stored. */
export const imageMediaType = (key: string): string => IMAGE_TYPES[key.split('.').pop()?.toLowerCase() ?? ''] ?? 'image/png';

const imageOf = (key: string): ApObject => ({ type: 'Image', mediaType: imageMediaType(key), url: mediaUrl(key) });

/** A custom emoji as the `tag` of a Person or Note (Mastodon's `toot:Emoji`). */
export function renderEmojiTag(emoji: Emoji): ApObject {
  return {
    id: apUrls.emoji(emoji.shortcode),
    type: 'Emoji',
    name: `:${emoji.shortcode}:`,
    updated: emoji.createdAt,
    icon: imageOf(emoji.key),
  };
}

const emojiTags = (shortcodes: string[], known: Map<string, Emoji>): ApObject[] =>
  shortcodes.flatMap((code) => {
    const emoji = known.get(code);
    return emoji ? [renderEmojiTag(emoji)] : [];
  });

/** The actor URI of any account we know: ours are minted here, a remote one's is its own id. */
export const actorUriOf = (account: Pick<Account, 'username' | 'domain' | 'uri'>): string | undefined =>
  account.domain ? account.uri ?? undefined : apUrls.actor(account.username);

/** `@user@domain`, the handle a Mention names. */
const handleOf = (account: Pick<Account, 'username' | 'domain'>) => `@${account.username}@${account.domain ?? config.domain}`;

// ---- actors ----

/** Profile fields as PropertyValues, in the HTML the server rendered when they were written. */
const propertyValues = (account: Account): ApObject[] => account.fieldsHtml.map((f) => ({ type: 'PropertyValue', name: f.name, value: f.value }));

/** Mastodon publishes the day an account was made, not the instant. */
const dayOf = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 10)}T00:00:00Z`;
};

/** A local account as a Person (Service for a bot), with its publicKey; one read for its emoji, one for its key. */
export async function renderPerson(account: Account): Promise<ApObject> {
  const actor = apUrls.actor(account.username);
  // A suspended account keeps its key (its signatures still verify) and says `suspended`, showing nothing it
  // wrote or chose (Mastodon's ActivityPub::ActorSerializer).
  const suspended = isSuspended(account);
  const shortcodes = suspended ? [] : shortcodesIn([account.displayName, account.note]);
  const [emojis, publicKeyPem] = await Promise.all([
    shortcodes.length > 0 ? emojisByShortcodes(shortcodes) : Promise.resolve(new Map<string, Emoji>()),
    publicKeyOf(account),
  ]);
  return {
    '@context': DOCUMENT_CONTEXT,
    id: actor,
    type: account.bot ? 'Service' : 'Person',
    following: apUrls.following(account.username),
    followers: apUrls.followers(account.username),
    inbox: apUrls.inbox(account.username),
    outbox: apUrls.outbox(account.username),
    featured: apUrls.featured(account.username),
    featuredCollections: apUrls.featuredCollections(account.username),
    // Mastodon 4.6: anyone may feature a discoverable account without asking; else only the account itself.
    interactionPolicy: { canFeature: { automaticApproval: [account.discoverable && !suspended ? AS_PUBLIC : actor] } },
    preferredUsername: account.username,
    name: suspended ? account.username : account.displayName,
    summary: suspended ? '' : account.noteHtml,
    url: apUrls.profile(account.username),
    manuallyApprovesFollowers: suspended ? false : account.locked,
    discoverable: suspended ? false : account.discoverable,
    published: dayOf(account.createdAt),
    publicKey: { id: apUrls.keyId(account.username), owner: actor, publicKeyPem },
    tag: emojiTags(shortcodes, emojis),
    attachment: suspended ? [] : propertyValues(account),
    endpoints: { sharedInbox: apUrls.sharedInbox() },
    ...(suspended ? { suspended: true } : {}),
    // Mastodon 4.4-4.6: whether its posts may be indexed for search, the sites that may credit it, its profile's display choices.
    indexable: suspended ? false : account.indexable,
    attributionDomains: suspended ? [] : account.attributionDomains,
    ...(suspended ? {} : { showFeatured: account.showFeatured, showMedia: account.showMedia, showRepliesInMedia: account.showMediaReplies }),
    // The images' descriptions travel as their names (Mastodon 4.6).
    ...(!suspended && account.avatarKey ? { icon: describedImage(account.avatarKey, account.avatarDescription) } : {}),
    ...(!suspended && account.headerKey ? { image: describedImage(account.headerKey, account.headerDescription) } : {}),
  };
}

const describedImage = (key: string, description: string): ApObject => ({ ...imageOf(key), ...(description !== '' ? { name: description } : {}) });

/** The instance's own host name: the instance actor's preferredUsername, as Mastodon names it. */
export const instanceActorUsername = (): string => new URL(config.baseUrl).hostname;

/**
 * The instance actor (an Application): signs the fetches made on no one's behalf, and
 * is what a peer fetches to check those signatures. Its inbox is the shared inbox.
 */
export async function renderInstanceActor(): Promise<ApObject> {
  const actor = apUrls.instanceActor();
  return {
    '@context': DOCUMENT_CONTEXT,
    id: actor,
    type: 'Application',
    preferredUsername: instanceActorUsername(),
    name: instanceActorUsername(),
    inbox: apUrls.sharedInbox(),
    outbox: apUrls.instanceOutbox(),
    url: config.baseUrl,
    manuallyApprovesFollowers: true,
    publicKey: { id: apUrls.instanceKeyId(), owner: actor, publicKeyPem: await instancePublicKey() },
    endpoints: { sharedInbox: apUrls.sharedInbox() },
  };
}

// ---- notes ----

/** What rendering some statuses as Notes reads besides the statuses and their author. */
export type NoteSources = {
  media: Map<string, Media>;
  /** Mentioned accounts and the accounts replied to. */
  accounts: Map<string, Account>;
  /** The parents of replies and the statuses quoted (absent when deleted). */
  parents: Map<string, Status>;
  emojis: Map<string, Emoji>;
  /** The polls of poll statuses (rendered as Questions). */
  polls: Map<string, Poll>;
  /** The instant a poll is judged ended by (the sweeper's, which a test may move); now when absent. */
  now?: number;
};

/** Reads what `statuses` render with: one round of batch reads (attachments, accounts, parents, emoji) in parallel. */
export async function noteSources(statuses: Status[]): Promise<NoteSources> {
  const accountIds = new Set<string>();
  const parentIds = new Set<string>();
  for (const s of statuses) {
    for (const m of s.mentions) accountIds.add(m.id);
    if (s.inReplyToAccountId) accountIds.add(s.inReplyToAccountId);
    if (s.inReplyToId) parentIds.add(s.inReplyToId);
    // A quoted status and its author are read with the parents and the mentioned accounts (their ids name it).
    if (s.quote?.quotedStatusId) parentIds.add(s.quote.quotedStatusId);
    if (s.quote?.quotedAccountId) accountIds.add(s.quote.quotedAccountId);
  }
  const shortcodes = shortcodesOfEach(statuses.map((s) => [s.spoilerText, s.text]));
  const [media, accounts, parents, emojis, polls] = await Promise.all([
    mediaByIds(statuses.flatMap((s) => s.mediaIds)),
    accountsByIds([...accountIds]),
    statusesByIds([...parentIds]),
    shortcodes.length > 0 ? emojisByShortcodes(shortcodes) : Promise.resolve(new Map<string, Emoji>()),
    pollsByIds(statuses.flatMap((s) => (s.pollId ? [s.pollId] : []))),
  ]);
  return { media, accounts, parents, emojis, polls };
}

/** The ActivityPub id of a status: ours minted from its author, a remote one's its own `uri`. */
export function statusApId(status: Pick<Status, 'id' | 'uri'>, author: Pick<Account, 'username' | 'domain'> | undefined): string | undefined {
  if (status.uri) return status.uri;
  return author && !author.domain ? apUrls.status(author.username, status.id) : undefined;
}

/** `inReplyTo`: the parent's id, known from the parent (ours or remote) or, for our own deleted parent, from its author. */
function inReplyToOf(status: Status, sources: NoteSources): string | null {
  if (!status.inReplyToId) return null;
  const parent = sources.parents.get(status.inReplyToId);
  const parentAuthor = status.inReplyToAccountId ? sources.accounts.get(status.inReplyToAccountId) : undefined;
  return statusApId(parent ?? { id: status.inReplyToId, uri: null }, parentAuthor) ?? null;
}

/** A Mention tag and the actor it addresses, for each mentioned account still known. */
function mentionsOf(status: Status, sources: NoteSources): { actors: string[]; tags: ApObject[] } {
  const actors: string[] = [];
  const tags: ApObject[] = [];
  for (const mention of status.mentions) {
    const account = sources.accounts.get(mention.id);
    const href = account ? actorUriOf(account) : undefined;
    if (!account || !href || actors.includes(href)) continue;
    actors.push(href);
    tags.push({ type: 'Mention', href, name: handleOf(account) });
  }
  return { actors, tags };
}

/** The MIME type of an ActivityStreams document, as a FEP-e232 object link names it. */
const AS_MEDIA_TYPE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/**
 * A quote's fields (Mastodon 4.5): the quoted status's id as FEP-044f's `quote` and under the names Fedibird
 * and Misskey read, and a FEP-e232 Link tag; for a quote that is pending or accepted only (a refused one
 * quotes nothing). Its author's approval stamp, for a remote quoted status, as `quoteAuthorization`.
 */
function quoteFieldsOf(status: Status, sources: NoteSources): { fields: ApObject; tag?: ApObject } {
  const quote = status.quote;
  if (!quote?.quotedStatusId || (quote.state !== 'accepted' && quote.state !== 'pending')) return { fields: {} };
  const quoted = sources.parents.get(quote.quotedStatusId);
  const quotedAuthor = quote.quotedAccountId ? sources.accounts.get(quote.quotedAccountId) : undefined;
  const uri = quoted ? statusApId(quoted, quotedAuthor) : undefined;
  if (!uri) return { fields: {} };
  // Our own accounts' stamps are minted, not stored (Mastodon's approval_uri_for); a remote author's is what it sent.
  const stamp = quote.state !== 'accepted' ? undefined : quotedAuthor && !quotedAuthor.domain ? quoteAuthorizationId(quotedAuthor.username, status.id) : quote.approvalUri;
  return {
    fields: { quote: uri, quoteUri: uri, _misskey_quote: uri, ...(stamp ? { quoteAuthorization: stamp } : {}) },
    tag: { type: 'Link', mediaType: AS_MEDIA_TYPE, href: uri, name: `RE: ${uri}` },
  };
}

/**
 * Who may quote the status (GoToSocial's interactionPolicy, as Mastodon 4.5 sends it): everyone, the author's
 * followers, or, with `nobody`, its author alone. Outgoing policies are automatic approval only.
 */
function interactionPolicyOf(status: Status, author: Account): ApObject {
  const policy = quotePolicyOf(status);
  const automaticApproval = policy === 'public' ? [AS_PUBLIC] : policy === 'followers' ? [apUrls.followers(author.username)] : [apUrls.actor(author.username)];
  return { canQuote: { automaticApproval } };
}

/** A local attachment as a Document (Mastodon sends every kind as Document, with its media type). */
function documentOf(media: Media): ApObject | undefined {
  const key = media.fileKey;
  const url = key ? mediaUrl(key) : media.remoteUrlRefused ? null : media.remoteUrl;
  if (!url) return undefined;
  return {
    type: 'Document',
    mediaType: media.contentType ?? (key ? imageMediaType(key) : 'application/octet-stream'),
    url,
    name: media.description,
    blurhash: media.blurhash,
    ...(media.focus ? { focalPoint: [media.focus.x, media.focus.y] } : {}),
    ...(media.original ? { width: media.original.width, height: media.original.height } : {}),
  };
}

/** A local status (not a reblog) as a Note, without @context, from what `noteSources` read. */
export function noteOf(status: Status, author: Account, sources: NoteSources): ApObject {
  const mentions = mentionsOf(status, sources);
  const { to, cc } = statusAddressing(status, { publicCollection: AS_PUBLIC, followers: apUrls.followers(author.username), mentioned: mentions.actors });
  const hashtags = status.tags.map((name) => ({ type: 'Hashtag', href: apUrls.tag(name), name: `#${name}` }));
  const emojis = emojiTags(shortcodesIn([status.spoilerText, status.text]), sources.emojis);
  const poll = status.pollId ? sources.polls.get(status.pollId) : undefined;
  const quote = quoteFieldsOf(status, sources);
  return {
    id: apUrls.status(author.username, status.id),
    type: 'Note',
    summary: status.spoilerText === '' ? null : status.spoilerText,
    inReplyTo: inReplyToOf(status, sources),
    published: status.createdAt,
    ...(status.editedAt ? { updated: status.editedAt } : {}),
    url: apUrls.statusPage(author.username, status.id),
    // Where other servers find the thread's replies that never reached them (Mastodon reads it on a thread's open).
    replies: apUrls.replies(author.username, status.id),
    attributedTo: apUrls.actor(author.username),
    to,
    cc,
    sensitive: status.sensitive,
    content: status.contentHtml,
    ...(status.language ? { contentMap: { [status.language]: status.contentHtml } } : {}),
    attachment: status.mediaIds.flatMap((id) => {
      const media = sources.media.get(id);
      const document = media ? documentOf(media) : undefined;
      return document ? [document] : [];
    }),
    tag: [...mentions.tags, ...hashtags, ...emojis, ...(quote.tag ? [quote.tag] : [])],
    ...quote.fields,
    interactionPolicy: interactionPolicyOf(status, author),
    ...(poll ? questionFields(poll, sources.now) : {}),
  };
}

/** A local status as a Note (audience in to/cc by visibility), without @context. */
export async function renderNote(status: Status, author: Account): Promise<ApObject> {
  return noteOf(status, author, await noteSources([status]));
}

/** The Create of a Note: the same audience, its id the status's `/activity`. */
export function createOf(status: Status, author: Account, note: ApObject): ApObject {
  return {
    id: apUrls.activity(author.username, status.id),
    type: 'Create',
    actor: apUrls.actor(author.username),
    published: status.createdAt,
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/** The Create of a local status, with @context, its Note embedded, the same to/cc. */
export async function renderCreate(status: Status, author: Account): Promise<ApObject> {
  return { '@context': DOCUMENT_CONTEXT, ...createOf(status, author, await renderNote(status, author)) };
}

/**
 * The Announce of a reblog, without @context: the original by its id (ours or its
 * server's), addressed as Mastodon addresses a reblog of its visibility (a public
 * one to everyone, cc the reblogger's followers), the original's author in `cc`.
 */
export function announceOf(reblog: Status, reblogger: Account, original: Status, originalAuthor: Account): ApObject | undefined {
  const object = statusApId(original, originalAuthor);
  const originalActor = actorUriOf(originalAuthor);
  if (!object || !originalActor) return undefined;
  const { to, cc } = statusAddressing(reblog, { publicCollection: AS_PUBLIC, followers: apUrls.followers(reblogger.username), mentioned: [] });
  return {
    id: apUrls.activity(reblogger.username, reblog.id),
    type: 'Announce',
    actor: apUrls.actor(reblogger.username),
    published: reblog.createdAt,
    to,
    cc: [originalActor, ...cc],
    object,
  };
}

/** What is left of a deleted object: answers for its id, and the object of a Delete. */
export const renderTombstone = (id: string): ApObject => ({ id, type: 'Tombstone' });

// ---- collections ----

/** A collection's outline: its size and where its pages start and end (Mastodon's shape). */
export function orderedCollection(id: string, totalItems: number, pages?: { first: string; last?: string }): ApObject {
  return {
    '@context': DOCUMENT_CONTEXT,
    id,
    type: 'OrderedCollection',
    totalItems: Math.max(0, totalItems),
    ...(pages ? { first: pages.first, ...(pages.last ? { last: pages.last } : {}) } : {}),
  };
}

/** A whole small collection in one document (the featured statuses). */
export function orderedCollectionWithItems(id: string, orderedItems: unknown[]): ApObject {
  return { '@context': DOCUMENT_CONTEXT, id, type: 'OrderedCollection', totalItems: orderedItems.length, orderedItems };
}

/** One page of a collection, with the neighbouring pages when there are any. */
export function orderedCollectionPage(page: { id: string; partOf: string; next?: string; prev?: string; orderedItems: unknown[] }): ApObject {
  return {
    '@context': DOCUMENT_CONTEXT,
    id: page.id,
    type: 'OrderedCollectionPage',
    ...(page.next ? { next: page.next } : {}),
    ...(page.prev ? { prev: page.prev } : {}),
    partOf: page.partOf,
    orderedItems: page.orderedItems,
  };
}
