// Status entity (https://docs.joinmastodon.org/entities/Status/), Mastodon 3.5.
// A page renders with one batch read for everything it needs (accounts, media,
// polls, the viewer's flags and votes), plus one before it for the originals of
// reblogs that are not on the page themselves.
import { config } from '../config';
import type { Account } from '../db/accounts';
import type { Emoji } from '../db/emojis';
import type { Media } from '../db/media';
import type { Poll } from '../db/polls';
import { emojisByCodes, statusPageItems } from '../db/status_page';
import { statusesByIds, type Status } from '../db/statuses';
import { notFound } from '../errors';
import { renderAccount } from './account';
import { renderAttachment } from './attachment';
import { renderPoll } from './poll';
import { emojisFor, renderRemoteEmojis, shortcodesOfEach } from './emoji';
import { renderCard } from './card';
import { filterResultsFor, type FilterResultContext } from '../filters/results';
import { sanctionedOut, shownSensitive, type SanctionPlace } from '../policy/sanctions';

/** A remote status keeps the ActivityPub id its server gave it; ours are built from our URL scheme. */
export const statusUri = (account: Account, status: Status) =>
  status.uri ?? `${config.baseUrl}/users/${account.username}/statuses/${status.id}${status.reblogOfId ? '/activity' : ''}`;
/** A remote status's page is its `url` (its id when it has none), as Mastodon answers. */
export const statusUrl = (account: Account, status: Status) =>
  status.uri ? status.url ?? status.uri : `${config.baseUrl}/@${account.username}/${status.id}`;
export const tagUrl = (tag: string) => `${config.baseUrl}/tags/${encodeURIComponent(tag)}`;

export type RenderOptions = {
  /** The delete response: `text` (the source) in place of `content`, for delete-and-redraft. */
  withSource?: boolean;
  /**
   * Where the statuses are shown (Mastodon 4's filter contexts): a signed-in viewer's filters of that
   * context mark each status `filtered` (FilterResult[]); without a context `filtered` is [] for a viewer.
   */
  context?: FilterResultContext;
  /**
   * Where the page is shown, for the sanctions (lib/policy/sanctions.ts): a suspended author's statuses leave
   * every page; a limited author's leave `public` places (the default of the `public` context) for everyone,
   * and `search` for those who do not follow it.
   */
  sanctions?: SanctionPlace;
};

export async function renderStatuses(
  statuses: Status[],
  viewer: Account | undefined,
  opts: RenderOptions = {},
): Promise<Record<string, unknown>[]> {
  const onPage = new Map(statuses.map((s) => [s.id, s]));
  const missingOriginals = [...new Set(statuses.flatMap((s) => (s.reblogOfId && !onPage.has(s.reblogOfId) ? [s.reblogOfId] : [])))];
  const originalsRead = await statusesByIds(missingOriginals);
  const originals = new Map<string, Status>();
  for (const id of missingOriginals) {
    const found = originalsRead.get(id);
    if (found) originals.set(id, found);
  }
  const originalOf = (s: Status) => (s.reblogOfId ? onPage.get(s.reblogOfId) ?? originals.get(s.reblogOfId) : undefined);

  const shown = [...statuses, ...originals.values()];
  // Custom emoji: the texts' shortcodes join this batch; the authors' (display name, note) are known only once the
  // accounts are read, so they cost a second small batch, only when an author uses an emoji the texts do not.
  const statusCodes = shortcodesOfEach(shown.map((s) => [s.spoilerText, s.text]));
  const loaded = await statusPageItems(shown, viewer?.id, statusCodes);
  const authorCodes = shortcodesOfEach(
    shown.map((s) => {
      const a = loaded.account(s.accountId);
      return a ? [a.displayName, a.note] : [];
    }),
  ).filter((c) => !statusCodes.includes(c));
  const authorEmoji = await emojisByCodes(authorCodes);
  const knownEmojis = new Map<string, Emoji>();
  for (const code of [...statusCodes, ...authorCodes]) {
    const e = loaded.emoji(code) ?? authorEmoji(code);
    if (e) knownEmojis.set(code, e);
  }

  // Sanctions are decided from the authors this batch has just read (no read of their own but follow edges in search).
  const place = opts.sanctions ?? (opts.context === 'public' ? 'public' : 'other');
  const sanctioned = await sanctionedOut(shown, (s) => loaded.account(s.accountId), viewer, place);
  const filterResults = viewer && opts.context ? await filterResultsFor(viewer.id, shown, opts.context) : new Map<string, unknown[]>();
  const accountOf = (s: Status) => loaded.account(s.accountId);
  const mediaOf = (s: Status) => s.mediaIds.flatMap((id) => {
    const m: Media | undefined = loaded.media(id);
    return m ? [renderAttachment(m)] : [];
  });
  const pollOf = (s: Status) => {
    const poll: Poll | undefined = s.pollId ? loaded.poll(s.pollId) : undefined;
    if (!poll) return null;
    const vote = loaded.vote(poll.id);
    return renderPoll(poll, vote?.choices, viewer?.id);
  };

  const one = (s: Status, reblog: Record<string, unknown> | null): Record<string, unknown> | undefined => {
    const account = accountOf(s);
    if (!account || sanctioned.has(s.id)) return undefined;
    const flags = loaded.flags(s);
    const body = opts.withSource ? { text: s.text } : { content: s.contentHtml };
    return {
      id: s.id,
      created_at: s.createdAt,
      in_reply_to_id: s.inReplyToId,
      in_reply_to_account_id: s.inReplyToAccountId,
      sensitive: shownSensitive(s, account),
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
      emojis: s.uri ? renderRemoteEmojis(s.emojis) : emojisFor([s.spoilerText, s.text], knownEmojis),
      card: renderCard(loaded.card(s)),
      poll: pollOf(s),
      ...(viewer ? { filtered: filterResults.get(s.id) ?? [] } : {}),
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

/** What a viewer did with a status, which a single reblog answers for its original. */
const INTERACTIONS = ['favourited', 'reblogged', 'muted', 'bookmarked'] as const;

/**
 * One status; 404 when its author (or a reblog's original) is gone, as the status cannot be shown. A reblog alone
 * (the answer to POST .../reblog, GET of a reblog's id) carries its original's interaction flags at the top too, as
 * Mastodon's answer does (it asks them of the original when no page of relationships was prepared); on a page
 * (timelines) the top-level flags stay the reblog's own.
 */
export async function renderStatus(status: Status, viewer: Account | undefined, opts: RenderOptions = {}): Promise<Record<string, unknown>> {
  const [rendered] = await renderStatuses([status], viewer, opts);
  if (!rendered) throw notFound();
  const original = rendered.reblog;
  if (viewer && typeof original === 'object' && original !== null) {
    for (const flag of INTERACTIONS) rendered[flag] = (original as Record<string, unknown>)[flag];
  }
  return rendered;
}
