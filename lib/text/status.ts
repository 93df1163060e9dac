// Status text as Mastodon 3.5 formats and counts it: http(s) URLs are found by the
// one linkifier (./tokenize.ts, which profiles use too), @user and @user@domain
// mentions and #hashtags with twitter-text (plus a pass for @user@domain, which
// twitter-text does not know), overlapping entities
// resolved earliest-first; everything else is escaped; blank lines make
// paragraphs and single line breaks <br />.
//
// Finding the entities is the costly part (the linkifier, two twitter-text passes
// and a regular expression), so a post does it once: `parseStatusText` gives a
// ParsedText, and the length check, the mentions, the tags and the HTML all
// read that.
import extractHashtagsWithIndices from 'twitter-text/dist/extractHashtagsWithIndices.js';
import extractMentionsWithIndices from 'twitter-text/dist/extractMentionsWithIndices.js';
import { config } from '../config';
import { escapeHtml, linkHtml } from './html';
import { COUNTED_LIMITS } from './limits';
import { findUrls } from './tokenize';
import { normalizeTag } from './tags';

export type UrlEntity = { kind: 'url'; start: number; end: number; text: string; href: string };
export type MentionEntity = { kind: 'mention'; start: number; end: number; username: string; domain: string | null };
export type HashtagEntity = { kind: 'hashtag'; start: number; end: number; tag: string };
export type Entity = UrlEntity | MentionEntity | HashtagEntity;

/** A mention that resolved to an account: rendered as a link and recorded on the status. */
export type ResolvedMention = { id: string; username: string; acct: string; url: string };

const REL = 'nofollow noopener noreferrer';
export const MAX_STATUS_LENGTH = COUNTED_LIMITS.statusCharacters;
const URL_COUNTED_LENGTH = 23;

/** Mastodon's username characters; twitter-text stops at 20 of them, Mastodon allows 30. */
const USERNAME_TAIL = /^[a-z0-9_]+/i;
/** @user@domain (a port is allowed, for local stacks such as localhost:3000). */
const REMOTE_MENTION = /(?<=^|[^/\p{L}\p{N}_])@([a-z0-9_]+(?:[a-z0-9_.-]*[a-z0-9_])?)@([\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*(?::\d{1,5})?)/giu;

const normalizeNewlines = (text: string) => text.replace(/\r\n?/g, '\n');

/**
 * A status text tokenised once: what posting reads to count, resolve mentions,
 * record tags and render HTML, so none of them looks at the raw text again.
 */
export type ParsedText = {
  /** The text with line endings normalized to \n; entity positions index into it. */
  readonly text: string;
  /** URLs, mentions and hashtags in order of position, none overlapping: what is counted, mentioned and tagged. */
  readonly entities: readonly Entity[];
  /** What the HTML shows: the text without surrounding whitespace, [start, end), and the entities found in it. */
  readonly shown: { readonly start: number; readonly end: number; readonly entities: readonly Entity[] };
};

/** The one tokenisation of a status text. Check the raw cap (lib/text/limits.ts) first: this is not linear. */
export function parseStatusText(raw: string): ParsedText {
  const text = normalizeNewlines(raw);
  const entities = findEntities(text);
  const start = text.length - text.trimStart().length;
  const end = Math.max(start, text.trimEnd().length);
  // The HTML is of the trimmed text. Its entities are those of the whole text
  // (none contains whitespace, and twitter-text takes whitespace as it takes
  // the text's ends) except beside U+FEFF, which trim() removes but twitter-text
  // counts as an invalid character: no URL is found right after it. Only then
  // is the trimmed text tokenised on its own.
  const shown =
    text[start - 1] === '\uFEFF' || text[end] === '\uFEFF'
      ? { start, end, entities: findEntities(text.slice(start, end)).map((e) => ({ ...e, start: e.start + start, end: e.end + start })) }
      : { start, end, entities };
  return { text, entities, shown };
}

/** Entities in order of position, none overlapping (for a text that is not a status, such as a tag name). */
export const extractEntities = (raw: string): Entity[] => findEntities(normalizeNewlines(raw));

function findEntities(text: string): Entity[] {
  const found: Entity[] = [];
  for (const u of findUrls(text)) found.push({ kind: 'url', ...u });
  for (const m of text.matchAll(REMOTE_MENTION)) {
    const [all, username = '', domain = ''] = m;
    const start = m.index ?? 0;
    found.push({ kind: 'mention', start, end: start + all.length, username, domain: domain.toLowerCase() });
  }
  for (const m of extractMentionsWithIndices(text)) {
    const [start, end] = m.indices;
    const tail = USERNAME_TAIL.exec(text.slice(end))?.[0] ?? '';
    if (text[end + tail.length] === '@') continue; // @user@domain, found above
    found.push({ kind: 'mention', start, end: end + tail.length, username: m.screenName + tail, domain: null });
  }
  for (const h of extractHashtagsWithIndices(text)) {
    found.push({ kind: 'hashtag', start: h.indices[0], end: h.indices[1], tag: h.hashtag });
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Entity[] = [];
  let reached = 0;
  for (const e of found) {
    if (e.start < reached) continue;
    out.push(e);
    reached = e.end;
  }
  return out;
}

/** Is this mention addressed to this server (no domain, or our own)? */
export const isLocalMention = (m: MentionEntity) => m.domain === null || m.domain === config.domain.toLowerCase();

export const mentionsOf = (parsed: ParsedText) => parsed.entities.flatMap((e) => (e.kind === 'mention' ? [e] : []));

/** Distinct normalized hashtags, in order of first use. */
export const tagsOf = (parsed: ParsedText) => [...new Set(parsed.entities.flatMap((e) => (e.kind === 'hashtag' ? [normalizeTag(e.tag)] : [])))];

/** The hashtags of a parse as written, in order (lib/text/tags.ts tagged makes the status's tags of them). */
export const hashtagSpellings = (parsed: ParsedText) => parsed.entities.flatMap((e) => (e.kind === 'hashtag' ? [e.tag] : []));

/**
 * The spelling of each tag as first written in the text, by stored (normalized)
 * tag. It takes the stored text of a local status, at most 2,500 characters (this
 * parse is not linear): the fan-out worker, which counts tag uses off the posting
 * path, tokenises the text once there.
 */
export function tagDisplayNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const e of parseStatusText(text).entities) {
    if (e.kind !== 'hashtag') continue;
    const tag = normalizeTag(e.tag);
    if (!names.has(tag)) names.set(tag, e.tag);
  }
  return names;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemeLength = (text: string) => {
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
};

/**
 * Mastodon's StatusLengthValidator: spoiler text plus text, in grapheme
 * clusters, every URL counted as 23 characters and a remote mention as its
 * `@username` part only.
 */
export function statusLength({ text, entities }: ParsedText, spoilerText = ''): number {
  let countable = '';
  let at = 0;
  for (const e of entities) {
    if (e.kind === 'hashtag') continue;
    countable += text.slice(at, e.start) + (e.kind === 'url' ? 'x'.repeat(URL_COUNTED_LENGTH) : `@${e.username}`);
    at = e.end;
  }
  countable += text.slice(at);
  return graphemeLength(spoilerText) + graphemeLength(countable);
}

const mentionKey = (username: string, domain: string | null) => `${username.toLowerCase()}@${domain ?? ''}`;
/** The lookup key of a resolved local account in the map given to `statusToHtml`. */
export const localMentionKey = (username: string) => mentionKey(username, null);
/** The lookup key of a resolved remote account (`username@domain`, lower-cased) in the same map. */
export const remoteMentionKey = (username: string, domain: string) => mentionKey(username, domain.toLowerCase());
/** The key a mention is resolved under: local ones by username alone, others by their handle. */
const mentionKeyOf = (m: MentionEntity) => (isLocalMention(m) || m.domain === null ? localMentionKey(m.username) : remoteMentionKey(m.username, m.domain));

function entityHtml(e: Entity, source: string, resolved: Map<string, ResolvedMention>): string {
  switch (e.kind) {
    case 'url':
      return linkHtml({ kind: 'url', text: e.text, href: e.href }, REL);
    case 'hashtag':
      return `<a href="${escapeHtml(`${config.baseUrl}/tags/${encodeURIComponent(e.tag)}`)}" class="mention hashtag" rel="tag">#<span>${escapeHtml(e.tag)}</span></a>`;
    case 'mention': {
      const account = resolved.get(mentionKeyOf(e));
      if (!account) return escapeHtml(source.slice(e.start, e.end));
      return `<span class="h-card"><a href="${escapeHtml(account.url)}" class="u-url mention">@<span>${escapeHtml(account.username)}</span></a></span>`;
    }
  }
}

/** The local mentions, as the usernames to look up (`localAccountsByUsernames`). */
export const localMentionUsernames = (parsed: ParsedText): string[] => mentionsOf(parsed).flatMap((m) => (isLocalMention(m) ? [m.username] : []));

/** The mentions of accounts on other servers, as the handles to look up among known remote accounts. */
export const remoteMentionHandles = (parsed: ParsedText): { username: string; domain: string }[] =>
  mentionsOf(parsed).flatMap((m) => (isLocalMention(m) || m.domain === null ? [] : [{ username: m.username, domain: m.domain }]));

/** The accounts mentioned, in order of first appearance, each once: what the status records and notifies. */
export function mentionedAccounts(parsed: ParsedText, resolved: Map<string, ResolvedMention>): ResolvedMention[] {
  const out = new Map<string, ResolvedMention>();
  for (const m of mentionsOf(parsed)) {
    const account = resolved.get(mentionKeyOf(m));
    if (account) out.set(account.id, account);
  }
  return [...out.values()];
}

/**
 * The HTML of a status. `resolved` maps `localMentionKey(username)` to the
 * local accounts that exist and `remoteMentionKey(username, domain)` to the known
 * remote ones; other mentions stay as plain text.
 */
export function statusToHtml({ text, shown: { start, end, entities } }: ParsedText, resolved: Map<string, ResolvedMention>): string {
  if (end === start) return '';
  let html = '';
  let at = start;
  for (const e of entities) {
    html += escapeHtml(text.slice(at, e.start)) + entityHtml(e, text, resolved);
    at = e.end;
  }
  html += escapeHtml(text.slice(at, end));
  return html
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${paragraph.replace(/\n/g, '<br />')}</p>`)
    .join('');
}

/**
 * The text without the hashtags of `unusable` (normalised tags moderators made unusable, Mastodon's usable=false):
 * they stay plain text, neither linked nor recorded as the status's tags.
 */
export function withoutHashtags(parsed: ParsedText, unusable: ReadonlySet<string>): ParsedText {
  if (unusable.size === 0) return parsed;
  const keep = (e: Entity) => e.kind !== 'hashtag' || !unusable.has(normalizeTag(e.tag));
  if (parsed.entities.every(keep) && parsed.shown.entities.every(keep)) return parsed;
  return { text: parsed.text, entities: parsed.entities.filter(keep), shown: { ...parsed.shown, entities: parsed.shown.entities.filter(keep) } };
}
