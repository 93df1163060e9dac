// Remote statuses: a Note (as real peers send it) stored once by its id as a
// status of its remote author, then fanned out like a local post (Mastodon's
// ActivityPub::Activity::Create#create_status). Reading the Note is pure
// (`readNote`); what it names here (the replied-to status, the mentioned
// accounts) is looked up next; one transaction stores it (lib/db/status_writes.ts
// writeRemoteStatus); the same queues as posting deliver it.
import { countServerStatus } from '../db/daily_stats';
import type { Account } from '../db/accounts';
import type { RemoteEmoji } from '../db/emojis';
import type { Media } from '../db/media';
import { remoteAccountByUri, remoteStatusIdByUri } from '../db/remote';
import { writeSearchIndex } from '../db/search';
import { localAccountsByUsernames, statusById, type QuotePolicy, type Status, type Visibility } from '../db/statuses';
import type { Quote } from '../db/quotes';
import { writeRemoteStatus } from '../db/status_writes';
import { fanoutPageDone } from '../db/timelines';
import { recordDirectStatus } from '../conversations';
import { config } from '../config';
import { newId } from '../ids';
import { log } from '../log';
import { listedInPublicTimelines, reblogKeepsVisibility, searchableByAnyone } from '../policy';
import { enqueue } from '../queue';
import type { Enqueued } from '../queue/messages';
import { isLanguageCode } from '../text/languages';
import { parseStatusText } from '../text/status';
import { tagged } from '../text/tags';
import { boundedRemoteHtml, htmlToText, truncateUtf8 } from './sanitize';
import { readEmojiTags } from './emoji_tags';
import { MAX_URL_LENGTH, passesUrlRules } from './guard';
import { requestAttachmentCopies, requestCopiesOfStatus } from './media_requests';
import { readQuestion, remotePoll, type ReadPoll } from './polls';
import { fetchMentionedActors } from './mentions';
import { fetchParent, newThreadBudget, type ThreadBudget } from './threads';
import { parseLocalUrl } from './urls';
import { asArray, canonicalId, dateOf, httpUrl, idOf, idsOf, isPublicCollection, objectOf, sameHost, textOf, typeOf, urlOf, type ApDocument } from './vocab';

/** What is stored as a status: a Note; Article and Page as a plain status of their content; Question with its poll. */
const NOTE_TYPES = new Set(['Note', 'Article', 'Page', 'Question']);
/** Attachment types read; anything else (links, property values) is not media. */
const MEDIA_TYPES = new Set(['Document', 'Image', 'Video', 'Audio']);

/** Mastodon keeps the first four attachments of a remote status. */
export const MAX_REMOTE_MEDIA = 4;
/** Ids longer than this are refused: they key items (DynamoDB keys stop at 2 KB) and no real server mints them. */
export const MAX_ID_LENGTH = 1000;
/**
 * A remote status's sanitised HTML is cut to this many UTF-8 bytes, and its plain text (stored beside it) too.
 * Mastodon keeps remote content whole; a status item must stay under DynamoDB's 400 KB, and twenty of them
 * under what a Lambda response carries. What a status item holds at most, in bytes: content and text
 * 2 × 100,000; spoiler 5,000; 40 tags of at most 300; 50 mentions of at most ~2,600 (id, username ≤ 255,
 * acct, URL ≤ MAX_URL_LENGTH); 20 emoji of at most ~2,200; uri and url ≤ 3,000; the rest under 1,000: about
 * 398,000 in the worst case, usually 200,000 and less, and lib/db/item_size.ts refuses by name whatever
 * would still pass the limit.
 */
export const MAX_CONTENT_BYTES = 100_000;
const MAX_SPOILER_BYTES = 5_000;
/** Mastodon's limit on a media description is 1,500 characters: as many CJK ones. */
const MAX_DESCRIPTION_BYTES = 4_500;
const MAX_TAGS = 40;
const MAX_MENTIONS = 50;
const MAX_DIMENSION = 100_000;
const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,100}$/;

/** A Note's attachment as stored: its server's file, not fetched in part 1. */
type RemoteAttachment = Pick<Media, 'type' | 'remoteUrl' | 'remoteUrlRefused' | 'contentType' | 'description' | 'blurhash' | 'focus' | 'original'>;

/** What a Note says, checked and in our terms; what it names (parent, mentions) is still to be looked up. */
export type ReadNote = {
  uri: string;
  url: string | null;
  createdAt: Date;
  visibility: Visibility;
  contentHtml: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  inReplyTo: string | undefined;
  /** Mentioned actors: Mention tags, and for a limited status every actor it is addressed to (Mastodon's silent mentions). */
  mentioned: string[];
  /** Its Hashtag tags: each once as stored, and as the Note names it (lib/text/tags.ts tagged). */
  tags: string[];
  tagNames: string[];
  attachments: RemoteAttachment[];
  /** A Question's poll (./polls.ts). */
  poll: ReadPoll | undefined;
  /** Its server's custom emoji that its text uses (./emoji_tags.ts). */
  emojis: RemoteEmoji[];
  /** The status it quotes (FEP-044f `quote`, or the older names, or a FEP-e232 link), and its author's approval stamp. */
  quote: string | undefined;
  quoteAuthorization: string | undefined;
  /** Who may quote it, from `interactionPolicy.canQuote.automaticApproval` (none given: nobody, as Mastodon reads it). */
  quotePolicy: QuotePolicy;
};

/** The MIME types a FEP-e232 object link names an ActivityStreams document with. */
const AS_DOCUMENT_TYPES = ['application/activity+json', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'];

/**
 * The quoted status a Note names, as Mastodon 4.5 looks for it: FEP-044f's `quote`, then `quoteUrl` (Akkoma),
 * `quoteUri` (Fedibird), `_misskey_quote`, then the first FEP-e232 Link tag to an ActivityStreams document.
 */
function quoteOfNote(note: ApDocument, tags: ApDocument[]): string | undefined {
  for (const field of ['quote', 'quoteUrl', 'quoteUri', '_misskey_quote'] as const) {
    const uri = httpUrl(idOf(note[field]));
    if (uri) return uri;
  }
  const link = tags.find((t) => typeOf(t) === 'Link' && typeof t.mediaType === 'string' && AS_DOCUMENT_TYPES.includes(t.mediaType.replace(/\s+/g, ' ')));
  return link ? httpUrl(link.href) : undefined;
}

/** The quote policy a Note's `interactionPolicy` gives: everyone, the author's followers, or nobody (its author alone). */
function quotePolicyOfNote(note: ApDocument, author: Account): QuotePolicy {
  const canQuote = objectOf(objectOf(note.interactionPolicy)?.canQuote);
  const automatic = idsOf(canQuote?.automaticApproval);
  if (automatic.some((id) => isPublicCollection(id))) return 'public';
  if (author.followersUrl && automatic.includes(author.followersUrl)) return 'followers';
  return 'nobody';
}

/**
 * The visibility its addressing gives a Note: public when the public collection is in `to`, unlisted when in
 * `cc`, followers-only when the author's followers are addressed, else direct (Mastodon's visibility_from_audience).
 */
export function visibilityOf(to: string[], cc: string[], author: Account): Visibility {
  if (to.some(isPublicCollection)) return 'public';
  if (cc.some(isPublicCollection)) return 'unlisted';
  if (author.followersUrl && [...to, ...cc].includes(author.followersUrl)) return 'private';
  return 'direct';
}

/** A hashtag name as a local post would store it, or undefined when it is not one (a tag name must tokenise as a hashtag). */
function hashtagOf(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const bare = name.trim().replace(/^#/, '');
  if (bare === '' || bare.length > 100) return undefined;
  const entities = parseStatusText(`#${bare}`).entities;
  const only = entities.length === 1 ? entities[0] : undefined;
  return only?.kind === 'hashtag' && only.tag === bare ? bare : undefined;
}

const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= MAX_DIMENSION ? v : undefined);

/** Mastodon's `focalPoint`: [x, y], each within -1..1. */
function focusOf(value: unknown): { x: number; y: number } | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [x, y] = value;
  const inRange = (n: unknown): n is number => typeof n === 'number' && n >= -1 && n <= 1;
  return inRange(x) && inRange(y) ? { x, y } : null;
}

/** The media type from the file's MIME type, else from the object's type. */
function mediaKindOf(doc: ApDocument): Media['type'] {
  const mime = typeof doc.mediaType === 'string' ? doc.mediaType.toLowerCase() : '';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  switch (typeOf(doc)) {
    case 'Image':
      return 'image';
    case 'Video':
      return 'video';
    case 'Audio':
      return 'audio';
    default:
      return 'unknown';
  }
}

function attachmentOf(value: unknown): RemoteAttachment | undefined {
  const doc = objectOf(value);
  if (!doc || !MEDIA_TYPES.has(typeOf(doc) ?? '')) return undefined;
  const remoteUrl = urlOf(doc.url);
  if (!remoteUrl || remoteUrl.length > MAX_URL_LENGTH) return undefined;
  const width = positiveInt(doc.width);
  const height = positiveInt(doc.height);
  const description = typeof doc.name === 'string' ? truncateUtf8(htmlToText(doc.name), MAX_DESCRIPTION_BYTES) : '';
  return {
    type: mediaKindOf(doc),
    remoteUrl,
    // A URL the guard would not fetch (a literal private or link-local address, plain http outside the local
    // stage) is kept to recognise the file in an edit, but never fetched nor shown.
    remoteUrlRefused: !passesUrlRules(remoteUrl),
    contentType: typeof doc.mediaType === 'string' ? doc.mediaType.slice(0, 100) : null,
    description: description === '' ? null : description,
    blurhash: typeof doc.blurhash === 'string' && BLURHASH.test(doc.blurhash) ? doc.blurhash : null,
    focus: focusOf(doc.focalPoint),
    original: width && height ? { width, height } : null,
  };
}

/** The first language of `contentMap` that is a language code. */
function languageOf(note: ApDocument): string | null {
  const map = objectOf(note.contentMap);
  const code = map ? Object.keys(map).map((k) => k.split('-')[0]!.toLowerCase()).find(isLanguageCode) : undefined;
  return code ?? null;
}

/** Never later than now: a clock ahead (or a lie) must not put a status above everything else. */
const notInFuture = (at: Date | undefined): Date => (at && at.getTime() <= Date.now() ? at : new Date());

const boundedUrl = (url: string | undefined): string | null => (url && url.length <= MAX_URL_LENGTH ? url : null);

/** A status's plain text: what keyword filters and search read, from its (bounded) HTML, as bounded. */
export const remoteStatusText = (contentHtml: string): string => truncateUtf8(htmlToText(contentHtml), MAX_CONTENT_BYTES);

/**
 * Reads a Note as real peers send it (the variants of test/fixtures/activitypub/README.md). Undefined when it
 * cannot be `author`'s status: not a note type, an id elsewhere than the author's server, `attributedTo` someone
 * else. Its content is bounded in bytes (MAX_CONTENT_BYTES), not refused.
 */
export function readNote(note: ApDocument, author: Account): ReadNote | undefined {
  if (!NOTE_TYPES.has(typeOf(note) ?? '')) return undefined;
  const uri = canonicalId(note.id);
  if (!uri || uri.length > MAX_ID_LENGTH || !author.uri || !sameHost(uri, author.uri)) return undefined;
  // The first attributed actor is the author, as Mastodon reads it.
  if (idsOf(note.attributedTo)[0] !== author.uri) return undefined;

  // Cut rather than refused, as a reader would rather see the start of a long post than nothing.
  const contentHtml = boundedRemoteHtml(textOf(note, 'content') ?? '', MAX_CONTENT_BYTES);
  const spoilerText = truncateUtf8(htmlToText(textOf(note, 'summary') ?? ''), MAX_SPOILER_BYTES);
  // A poll we could not store refuses the status, as oversize content does; a Question without options is a plain status.
  const poll = typeOf(note) === 'Question' ? readQuestion(note) : 'none';
  if (poll === 'refused') return undefined;

  const to = idsOf(note.to);
  const cc = idsOf(note.cc);
  const visibility = visibilityOf(to, cc, author);
  const tags = asArray(note.tag).flatMap((t): ApDocument[] => {
    const tag = objectOf(t);
    return tag ? [tag] : [];
  });
  const mentionTags = tags.filter((t) => typeOf(t) === 'Mention').flatMap((t) => httpUrl(t.href) ?? []);
  // A followers-only or direct status reaches the actors it is addressed to, named in a Mention tag or not.
  const audience = reblogKeepsVisibility({ visibility }) ? [...to, ...cc].flatMap((id) => httpUrl(id) ?? []) : [];
  const hashtags = tags.filter((t) => typeOf(t) === 'Hashtag').flatMap((t) => hashtagOf(t.name) ?? []);
  const inReplyTo = httpUrl(idOf(note.inReplyTo));

  return {
    uri,
    url: boundedUrl(urlOf(note.url)),
    createdAt: notInFuture(dateOf(note.published)),
    visibility,
    contentHtml,
    spoilerText,
    // A content warning always marks the status sensitive, as for local posts.
    sensitive: note.sensitive === true || spoilerText !== '',
    language: languageOf(note),
    inReplyTo: inReplyTo && inReplyTo.length <= MAX_ID_LENGTH ? inReplyTo : undefined,
    mentioned: [...new Set([...mentionTags, ...audience])].filter((id) => id !== author.uri && id !== author.followersUrl).slice(0, MAX_MENTIONS),
    ...tagged(hashtags, MAX_TAGS),
    attachments: asArray(note.attachment).flatMap((a) => attachmentOf(a) ?? []).slice(0, MAX_REMOTE_MEDIA),
    poll: poll === 'none' ? undefined : poll,
    emojis: readEmojiTags(note.tag, [spoilerText, htmlToText(contentHtml)]),
    quote: boundedId(quoteOfNote(note, tags)),
    quoteAuthorization: boundedId(httpUrl(idOf(note.quoteAuthorization))),
    quotePolicy: quotePolicyOfNote(note, author),
  };
}

const boundedId = (uri: string | undefined) => (uri && uri.length <= MAX_ID_LENGTH ? uri : undefined);

// ---- what the Note names here ----

/** The status a reply answers, when we have it: one of ours by its URL, or a stored remote one by its id. */
async function parentOf(inReplyTo: string | undefined): Promise<Status | undefined> {
  if (!inReplyTo) return undefined;
  const local = parseLocalUrl(inReplyTo);
  const id = local ? (local.kind === 'status' ? local.statusId : undefined) : await remoteStatusIdByUri(inReplyTo);
  const parent = id ? await statusById(id) : undefined;
  return parent && !parent.reblogOfId ? parent : undefined;
}

type Mention = Status['mentions'][number];

/**
 * The mentioned accounts: ours by their actor URL, remote ones stored, and with `fetchUnknown` the first few
 * unknown ones fetched (./mentions.ts). Actors not found are left out, as they could not be shown or notified.
 */
export async function mentionsOf(actorIds: string[], fetchUnknown: boolean): Promise<Mention[]> {
  const usernames = actorIds.flatMap((id) => {
    const local = parseLocalUrl(id);
    return local?.kind === 'actor' ? [local.username] : [];
  });
  const locals = await localAccountsByUsernames(usernames);
  const remoteIds = actorIds.filter((id) => !parseLocalUrl(id));
  const known = await Promise.all(remoteIds.map((id) => remoteAccountByUri(id)));
  const unknown = remoteIds.filter((_, i) => !known[i]);
  const remotes = [...known, ...(fetchUnknown && unknown.length > 0 ? await fetchMentionedActors(unknown) : [])];
  const found: Mention[] = [
    ...[...locals.values()].map((a) => ({ id: a.id, username: a.username, acct: a.username, url: `${config.baseUrl}/@${a.username}` })),
    ...remotes.flatMap((a) => (a?.domain ? [{ id: a.id, username: a.username, acct: `${a.username}@${a.domain}`, url: a.url ?? a.uri ?? '' }] : [])),
  ];
  return [...new Map(found.map((m) => [m.id, m])).values()];
}

// ---- storing ----

/** The stored status of a Note id; `gone` when it was stored and deleted since (its pointer is a tombstone). */
async function storedNote(uri: string): Promise<Status | 'gone' | undefined> {
  const id = await remoteStatusIdByUri(uri);
  if (!id) return undefined;
  return (await statusById(id, true)) ?? 'gone';
}

function statusOf(read: ReadNote, author: Account, parent: Status | undefined, mentions: Mention[], media: Media[], id: string, quote?: Quote): Status {
  return {
    id,
    uri: read.uri,
    url: read.url,
    accountId: author.id,
    createdAt: read.createdAt.toISOString(),
    reblogOfId: null,
    // The plain text of the content: what keyword filters and search read (a remote status has no source text).
    text: remoteStatusText(read.contentHtml),
    contentHtml: read.contentHtml,
    spoilerText: read.spoilerText,
    sensitive: read.sensitive,
    visibility: read.visibility,
    language: read.language,
    inReplyToId: parent?.id ?? null,
    inReplyToAccountId: parent?.accountId ?? null,
    conversationId: parent?.conversationId ?? id,
    mentions,
    tags: read.tags,
    tagNames: read.tagNames,
    mediaIds: media.map((m) => m.id),
    // The poll's id is the status's (one poll per status).
    pollId: read.poll ? id : null,
    applicationName: null,
    applicationWebsite: null,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    editedAt: null,
    emojis: read.emojis,
    quoteApprovalPolicy: read.quotePolicy,
    ...(quote ? { quote: { quotedStatusId: quote.quotedStatusId, quotedAccountId: quote.quotedAccountId, state: quote.state, ...(quote.approvalUri ? { approvalUri: quote.approvalUri } : {}) } } : {}),
  };
}

/**
 * The quote a received Note makes of a status we have (ours, stored, or fetched as a missing parent is). It is
 * pending until its quoted author approves it, as Mastodon keeps a remote quote, except a quote of the author's
 * own status, which needs no approval (VerifyQuoteService). The approval stamp, when sent, is kept for the
 * verification that is still to come (QuoteAuthorization).
 */
async function quoteOfRead(read: ReadNote, author: Account, id: string, thread: ThreadBudget): Promise<Quote | undefined> {
  if (!read.quote || read.quote === read.uri) return undefined;
  const quoted = (await parentOf(read.quote)) ?? (await fetchedParent(read.quote, thread));
  if (!quoted) return undefined;
  return {
    statusId: id,
    accountId: author.id,
    quotedStatusId: quoted.id,
    quotedAccountId: quoted.accountId,
    state: quoted.accountId === author.id ? 'accepted' : 'pending',
    activityUri: null,
    approvalUri: read.quoteAuthorization ?? null,
    createdAt: read.createdAt.toISOString(),
  };
}

const mediaOf = (attachments: RemoteAttachment[], author: Account, statusId: string, createdAt: string): Media[] =>
  attachments.map((a) => ({ ...a, id: newId(), accountId: author.id, statusId, fileKey: null, previewKey: null, fileSize: 0, small: null, state: 'ready', createdAt }));

/**
 * The fan-out and the mention notifications, through the same queues as a local post. A failure throws: the
 * inbox message is retried, and the retry finds the Note stored and sends these again (see storeRemoteNote).
 */
async function fanOutRemote(status: Status, author: Account): Promise<void> {
  const messages: Enqueued[] = [['fanout', { type: 'create', statusId: status.id }]];
  // Our own accounts are notified (their `acct` has no domain); remote ones hear of it from their servers.
  for (const m of status.mentions) {
    if (!m.acct.includes('@')) messages.push(['notify', { type: 'mention', accountId: m.id, fromAccountId: author.id, statusId: status.id }]);
  }
  for (const [queue, message] of messages) await enqueue(queue, message);
}

/** Search index and conversations: the status stands even if these fail, as for a local post. */
async function indexStored(status: Status): Promise<void> {
  try {
    await writeSearchIndex(status, searchableByAnyone(status));
    await recordDirectStatus(status);
  } catch (err) {
    log.error('indexing a remote status failed', { statusId: status.id, err });
  }
}

/**
 * How a Note is stored. `distribute: false`: not fanned out into homes nor notified (an ancestor fetched for a
 * reply, as Mastodon's fetches are not distributed). `thread`: what is left for fetching missing ancestors
 * (./threads.ts), shared by the ancestors of one received status; a new budget when absent.
 */
export type StoreOptions = { distribute?: boolean; thread?: ThreadBudget };

/** The parent a reply names, fetched and stored (without distributing it) when we do not have it; undefined when it cannot be had. */
async function fetchedParent(inReplyTo: string | undefined, thread: ThreadBudget): Promise<Status | undefined> {
  if (!inReplyTo) return undefined;
  const fetched = await fetchParent(inReplyTo, thread);
  if (!fetched) return undefined;
  // Stored as any Note is (its author and origin checked by readNote), its own parent fetched first.
  const stored = await storeRemoteNote(fetched.note, fetched.author, { distribute: false, thread });
  return stored && stored.uri === inReplyTo && !stored.reblogOfId ? stored : undefined;
}

/**
 * Stores the Note (once; a second call answers the stored status) and fans it out; undefined when it is not
 * acceptable (see readNote) or was deleted. A Note found stored whose fan-out has not run is fanned out again:
 * a worker that died between storing and enqueuing is finished by the redelivery (a fan-out page and a
 * notification are each written once however often they are asked for).
 */
export async function storeRemoteNote(note: Record<string, unknown>, author: Account, options: StoreOptions = {}): Promise<Status | undefined> {
  const distribute = options.distribute !== false;
  if (!author.domain) return undefined;
  const read = readNote(note, author);
  if (!read) return undefined;
  const stored = await storedNote(read.uri);
  if (stored === 'gone') return undefined;
  if (stored) {
    if (distribute && !(await fanoutPageDone(stored.id, 'create', ''))) {
      await requestCopiesOfStatus(stored);
      await fanOutRemote(stored, author);
    }
    return stored;
  }

  let parent = (await parentOf(read.inReplyTo)) ?? (await fetchedParent(read.inReplyTo, options.thread ?? newThreadBudget()));
  // A fetched ancestor notifies no one: its unknown mentions are not worth a fetch.
  const mentions = await mentionsOf(read.mentioned, distribute);
  const id = newId(read.createdAt);
  const media = mediaOf(read.attachments, author, id, read.createdAt.toISOString());
  const quote = await quoteOfRead(read, author, id, options.thread ?? newThreadBudget());
  let status = statusOf(read, author, parent, mentions, media, id, quote);
  let written = await writeRemoteStatus({ status, media, poll: read.poll && remotePoll(read.poll, status), listed: await listedInPublicTimelines(status, author), author, quote });
  if ('failed' in written && written.failed === 'reply-target-gone') {
    // The parent was deleted meanwhile: the reply stands on its own, as one to an unknown status.
    parent = undefined;
    status = statusOf(read, author, parent, mentions, media, id, quote);
    written = await writeRemoteStatus({ status, media, poll: read.poll && remotePoll(read.poll, status), listed: await listedInPublicTimelines(status, author), author, quote });
  }
  if ('failed' in written) {
    // Another delivery stored it first: answer that one (its own worker fans it out).
    const winner = await storedNote(read.uri);
    return winner === 'gone' ? undefined : winner;
  }
  log.info('remote status stored', { statusId: status.id, uri: status.uri, authorId: author.id });
  if (author.domain) await countServerStatus(author.domain, read.createdAt);
  // Copies of its files are made off this path (./remote_media.ts); their own URLs show until then.
  await requestAttachmentCopies(media);
  await indexStored(status);
  if (distribute) await fanOutRemote(status, author);
  return status;
}
