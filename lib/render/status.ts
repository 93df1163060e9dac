// Status entity (https://docs.joinmastodon.org/entities/Status/), Mastodon 3.5.
// A page renders with one batch read for everything it needs (accounts, media,
// polls, the viewer's flags and votes), plus one before it for the originals of
// reblogs that are not on the page themselves.
import { z } from 'zod';
import { config } from '../config';
import { accountItem, type Account } from '../db/accounts';
import { keys, type Key } from '../db/keys';
import { mediaItem, type Media } from '../db/media';
import { pollItem, pollVoteItem, type Poll } from '../db/polls';
import { statusItem, type Status } from '../db/statuses';
import { batchGet, keyString } from '../db/table';
import { notFound } from '../errors';
import { renderAccount } from './account';
import { renderAttachment } from './attachment';
import { renderPoll } from './poll';
import { emojiItem, type Emoji } from '../db/emojis';
import { emojisFor, shortcodesOfEach } from './emoji';

const anyItem = z.record(z.string(), z.unknown());
type Loaded = Map<string, Record<string, unknown>>;

/** One batch read of mixed keys; each found item is parsed with its own schema by `pick`. */
const readKeys = (list: Key[]): Promise<Loaded> => (list.length === 0 ? Promise.resolve(new Map()) : batchGet(list, anyItem));

function pick<T>(loaded: Loaded, key: Key, parser: z.ZodType<T, z.ZodTypeDef, unknown>): T | undefined {
  const raw = loaded.get(keyString(key));
  return raw === undefined ? undefined : parser.parse(raw);
}

const has = (loaded: Loaded, key: Key) => loaded.has(keyString(key));

export const statusUri = (account: Account, status: Status) =>
  `${config.baseUrl}/users/${account.username}/statuses/${status.id}${status.reblogOfId ? '/activity' : ''}`;
export const statusUrl = (account: Account, status: Status) => `${config.baseUrl}/@${account.username}/${status.id}`;
export const tagUrl = (tag: string) => `${config.baseUrl}/tags/${encodeURIComponent(tag)}`;

export type RenderOptions = {
  /** The delete response: `text` (the source) in place of `content`, for delete-and-redraft. */
  withSource?: boolean;
};

type Flags = { favourited: boolean; reblogged: boolean; bookmarked: boolean; pinned: boolean; muted: boolean };

function viewerKeys(status: Status, viewer: Account): Key[] {
  const list = [
    keys.favourite(viewer.id, status.id),
    keys.reblogFlag(viewer.id, status.id),
    keys.bookmark(viewer.id, status.id),
    keys.conversationMute(viewer.id, status.conversationId),
  ];
  if (status.accountId === viewer.id) list.push(keys.pin(viewer.id, status.id));
  if (status.pollId) list.push(keys.pollVote(status.pollId, viewer.id));
  return list;
}

function flagsOf(loaded: Loaded, status: Status, viewer: Account | undefined): Flags {
  if (!viewer) return { favourited: false, reblogged: false, bookmarked: false, pinned: false, muted: false };
  return {
    favourited: has(loaded, keys.favourite(viewer.id, status.id)),
    reblogged: has(loaded, keys.reblogFlag(viewer.id, status.id)),
    bookmarked: has(loaded, keys.bookmark(viewer.id, status.id)),
    pinned: status.accountId === viewer.id && has(loaded, keys.pin(viewer.id, status.id)),
    muted: has(loaded, keys.conversationMute(viewer.id, status.conversationId)),
  };
}

export async function renderStatuses(
  statuses: Status[],
  viewer: Account | undefined,
  opts: RenderOptions = {},
): Promise<Record<string, unknown>[]> {
  const onPage = new Map(statuses.map((s) => [s.id, s]));
  const missingOriginals = [...new Set(statuses.flatMap((s) => (s.reblogOfId && !onPage.has(s.reblogOfId) ? [s.reblogOfId] : [])))];
  const originalsRead = await readKeys(missingOriginals.map(keys.status));
  const originals = new Map<string, Status>();
  for (const id of missingOriginals) {
    const found = pick(originalsRead, keys.status(id), statusItem);
    if (found) originals.set(id, found);
  }
  const originalOf = (s: Status) => (s.reblogOfId ? onPage.get(s.reblogOfId) ?? originals.get(s.reblogOfId) : undefined);

  const shown = [...statuses, ...originals.values()];
  const wanted: Key[] = [];
  for (const s of shown) {
    wanted.push(keys.account(s.accountId), ...s.mediaIds.map(keys.media));
    if (s.pollId) wanted.push(keys.poll(s.pollId));
    if (viewer) wanted.push(...viewerKeys(s, viewer));
  }
  // Custom emoji: the texts' shortcodes join this batch; the authors' (display name, note) are known only once the
  // accounts are read, so they cost a second small batch, only when an author uses an emoji the texts do not.
  const statusCodes = shortcodesOfEach(shown.map((s) => [s.spoilerText, s.text]));
  wanted.push(...statusCodes.map(keys.emoji));
  const loaded = await readKeys(wanted);
  const authorCodes = shortcodesOfEach(
    shown.map((s) => {
      const a = pick(loaded, keys.account(s.accountId), accountItem);
      return a ? [a.displayName, a.note] : [];
    }),
  ).filter((c) => !statusCodes.includes(c));
  const emojiLoaded = authorCodes.length > 0 ? await readKeys(authorCodes.map(keys.emoji)) : new Map<string, Record<string, unknown>>();
  const knownEmojis = new Map<string, Emoji>();
  for (const code of [...statusCodes, ...authorCodes]) {
    const e = pick(loaded, keys.emoji(code), emojiItem) ?? pick(emojiLoaded, keys.emoji(code), emojiItem);
    if (e) knownEmojis.set(code, e);
  }

  const accountOf = (s: Status) => pick(loaded, keys.account(s.accountId), accountItem);
  const mediaOf = (s: Status) => s.mediaIds.flatMap((id) => {
    const m: Media | undefined = pick(loaded, keys.media(id), mediaItem);
    return m ? [renderAttachment(m)] : [];
  });
  const pollOf = (s: Status) => {
    const poll: Poll | undefined = s.pollId ? pick(loaded, keys.poll(s.pollId), pollItem) : undefined;
    if (!poll) return null;
    const vote = viewer ? pick(loaded, keys.pollVote(poll.id, viewer.id), pollVoteItem) : undefined;
    return renderPoll(poll, vote?.choices, viewer?.id);
  };

  const one = (s: Status, reblog: Record<string, unknown> | null): Record<string, unknown> | undefined => {
    const account = accountOf(s);
    if (!account) return undefined;
    const flags = flagsOf(loaded, s, viewer);
    const body = opts.withSource ? { text: s.text } : { content: s.contentHtml };
    return {
      id: s.id,
      created_at: s.createdAt,
      in_reply_to_id: s.inReplyToId,
      in_reply_to_account_id: s.inReplyToAccountId,
      sensitive: s.sensitive,
      spoiler_text: s.spoilerText,
      visibility: s.visibility,
      language: s.language,
      uri: statusUri(account, s),
      url: s.reblogOfId ? null : statusUrl(account, s),
      replies_count: Math.max(0, s.repliesCount),
      reblogs_count: Math.max(0, s.reblogsCount),
      favourites_count: Math.max(0, s.favouritesCount),
      edited_at: s.editedAt,
      favourited: flags.favourited,
      reblogged: flags.reblogged,
      muted: flags.muted,
      bookmarked: flags.bookmarked,
      ...(viewer && s.accountId === viewer.id && !s.reblogOfId ? { pinned: flags.pinned } : {}),
      ...body,
      reblog,
      application: s.applicationName ? { name: s.applicationName, website: s.applicationWebsite } : null,
      account: renderAccount(account, { emojis: knownEmojis }),
      media_attachments: mediaOf(s),
      mentions: s.mentions.map((m) => ({ id: m.id, username: m.username, url: m.url, acct: m.acct })),
      tags: s.tags.map((name) => ({ name, url: tagUrl(name) })),
      emojis: emojisFor([s.spoilerText, s.text], knownEmojis),
      card: null,
      poll: pollOf(s),
    };
  };

  const out: Record<string, unknown>[] = [];
  for (const s of statuses) {
    if (s.reblogOfId) {
      const original = originalOf(s);
      const inner = original && !original.reblogOfId ? one(original, null) : undefined;
      if (!inner) continue;
      const outer = one(s, inner);
      if (outer) out.push(outer);
    } else {
      const rendered = one(s, null);
      if (rendered) out.push(rendered);
    }
  }
  return out;
}

/** One status; 404 when its author (or a reblog's original) is gone, as the status cannot be shown. */
export async function renderStatus(status: Status, viewer: Account | undefined, opts: RenderOptions = {}): Promise<Record<string, unknown>> {
  const [rendered] = await renderStatuses([status], viewer, opts);
  if (!rendered) throw notFound();
  return rendered;
}
