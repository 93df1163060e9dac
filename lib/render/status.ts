// Status entity (https://docs.joinmastodon.org/entities/Status/), Mastodon 3.5.
// A page renders with one batch read for everything it needs (accounts, media,
// polls, the viewer's flags and votes), plus one before it for the originals of
// reblogs that are not on the page themselves.
import { config } from '../config';
import { accountsByIds, type Account } from '../db/accounts';
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
import { mayView } from '../policy/view';
import { quoteApprovalFor, quoteApprovalLists, quoteApprovalNeedsFollow, quoteHidesFor, type QuoteHides } from '../policy/quotes';
import { followEdges } from '../db/follows';

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
  // The originals of reblogs and the statuses accepted quotes quote, read in the batch the originals always took; the
  // quoted statuses of reblogged originals are known only then, and cost one more batch, only when there are some.
  const originals = new Map<string, Status>();
  const readMissing = async (ids: string[]) => {
    const missing = [...new Set(ids)].filter((id) => !onPage.has(id) && !originals.has(id));
    if (missing.length === 0) return;
    const read = await statusesByIds(missing);
    for (const id of missing) {
      const found = read.get(id);
      if (found) originals.set(id, found);
    }
  };
  await readMissing(statuses.flatMap((s) => [...(s.reblogOfId ? [s.reblogOfId] : []), ...acceptedQuoteOf(s)]));
  await readMissing([...originals.values()].flatMap(acceptedQuoteOf));
  const byId = (id: string) => onPage.get(id) ?? originals.get(id);
  const originalOf = (s: Status) => (s.reblogOfId ? byId(s.reblogOfId) : undefined);

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
  const quotes = await quoteViewFor(shown, viewer, byId, (id) => loaded.account(id));
  const pollOf = (s: Status) => {
    const poll: Poll | undefined = s.pollId ? loaded.poll(s.pollId) : undefined;
    if (!poll) return null;
    const vote = loaded.vote(poll.id);
    return renderPoll(poll, vote?.choices, viewer?.id);
  };

  /** Quote entity of a status shown at the top (its quoted status nested), ShallowQuote of one shown nested. */
  const quoteOf = (s: Status, nested: boolean): Record<string, unknown> | null => {
    if (!s.quote) return null;
    const quoted = s.quote.quotedStatusId ? byId(s.quote.quotedStatusId) : undefined;
    const state = quotes.stateOf(s, quoted, (q) => !sanctioned.has(q.id) && accountOf(q) !== undefined);
    const withStatus = QUOTED_SHOWN.has(state);
    if (nested) return { state, quoted_status_id: withStatus ? s.quote.quotedStatusId : null };
    const inner = withStatus && quoted ? one(quoted, null, true) : undefined;
    return { state: inner || !withStatus ? state : 'deleted', quoted_status: inner ?? null };
  };

  const one = (s: Status, reblog: Record<string, unknown> | null, nested = false): Record<string, unknown> | undefined => {
    const account = accountOf(s);
    if (!account || sanctioned.has(s.id)) return undefined;
    // A reblog's policy is its original's (Mastodon asks `proper`).
    const proper = reblog && s.reblogOfId ? originalOf(s) ?? s : s;
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
      quotes_count: Math.max(0, s.quotesCount ?? 0),
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
      quote: quoteOf(s, nested),
      quote_approval: { ...quoteApprovalLists(proper), current_user: quotes.approvalOf(proper) },
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

/** The quoted status a status's accepted quote names: what the page reads with the reblogged originals. */
const acceptedQuoteOf = (s: Status): string[] => (s.quote?.state === 'accepted' && s.quote.quotedStatusId ? [s.quote.quotedStatusId] : []);

/** The states in which a quote shows its quoted status (the spec's Quote.quoted_status). */
const QUOTED_SHOWN = new Set(['accepted', 'blocked_account', 'blocked_domain', 'muted_account']);

type QuoteView = {
  /** The state the viewer is shown of a status's quote (StatusCacheHydrator's, per viewer). */
  stateOf: (s: Status, quoted: Status | undefined, renderable: (quoted: Status) => boolean) => string;
  /** QuoteApproval.current_user of a status for the viewer. */
  approvalOf: (s: Status) => string;
};

/**
 * What a page's quotes and quote policies need of the viewer, read once for the page and only when the page has
 * them: the viewer's blocks and mutes when an accepted quote names someone else's status, one batch of follow
 * edges when a `followers` policy or a private quoted status asks whether the viewer follows its author.
 */
async function quoteViewFor(
  shown: Status[],
  viewer: Account | undefined,
  byId: (id: string) => Status | undefined,
  accountAt: (id: string) => Account | undefined,
): Promise<QuoteView> {
  const viewerId = viewer?.id;
  const quotedOthers = shown.flatMap((s) => {
    const quoted = acceptedQuoteOf(s).flatMap((id) => byId(id) ?? []);
    return quoted.filter((q) => q.accountId !== viewerId);
  });
  const followAsked = new Set([
    ...shown.filter((s) => quoteApprovalNeedsFollow(s, viewerId)).map((s) => s.accountId),
    ...quotedOthers.filter((q) => q.visibility === 'private').map((q) => q.accountId),
  ]);
  const [hides, edges] = await Promise.all([
    quotedOthers.length > 0 ? quoteHidesFor(viewerId) : undefined,
    viewerId && followAsked.size > 0 ? followEdges(viewerId, [...followAsked]) : undefined,
  ]);
  // A quote shown nested (ShallowQuote) may name a status the page did not read: its author's domain is asked of
  // the viewer's domain blocks as a read status's is, its account read (one batch) only when the viewer has some.
  const unreadAuthors = hides?.blocksDomains
    ? [...new Set(shown.flatMap((s) => (s.quote?.state === 'accepted' && s.quote.quotedStatusId && !byId(s.quote.quotedStatusId) && s.quote.quotedAccountId && !accountAt(s.quote.quotedAccountId) ? [s.quote.quotedAccountId] : [])))]
    : [];
  const nestedAuthors = unreadAuthors.length > 0 ? await accountsByIds(unreadAuthors) : new Map<string, Account>();
  const authorAt = (id: string): Pick<Account, 'id' | 'domain'> => accountAt(id) ?? nestedAuthors.get(id) ?? { id, domain: null };
  const follows = (accountId: string) => edges?.has(accountId) ?? false;
  const visibleNow = new Map<string, boolean>();
  for (const q of quotedOthers) visibleNow.set(q.id, await mayView(viewer, q, { followsAuthor: follows(q.accountId) }));
  return {
    stateOf: (s, quoted, renderable) => {
      const quote = s.quote;
      if (!quote) return 'deleted';
      if (quote.state !== 'accepted') return quote.state;
      if (!quote.quotedStatusId) return 'deleted';
      // A quote shown nested (ShallowQuote) names a status this page did not read: what its author's id tells.
      if (!quoted) return hides?.stateFor(authorAt(quote.quotedAccountId ?? '')) ?? 'accepted';
      if (quoted.accountId === viewerId) return 'accepted';
      if (!renderable(quoted) || visibleNow.get(quoted.id) === false) return 'unauthorized';
      const author = accountAt(quoted.accountId);
      return (author && hides?.stateFor(author)) ?? 'accepted';
    },
    approvalOf: (s) => quoteApprovalFor(s, viewerId, () => follows(s.accountId)),
  };
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
