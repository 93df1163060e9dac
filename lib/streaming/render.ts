// Statuses rendered for many stream receivers at once. Everything but the
// viewer's own flags is the same for every receiver, so a status is rendered
// once without a viewer (the status renderer's batch read), and each receiver's
// flags (favourited, reblogged, bookmarked, muted, pinned, their poll vote) are
// read for all receivers in one more batch read and laid over it; an accepted quote's
// state and quoted status are each receiver's (./quotes.ts). The result
// equals `renderStatus(status, receiver)` (test/integration/streaming-publish).
import { z } from 'zod';
import { accountsByIds, type Account } from '../db/accounts';
import { seedKnownEmpty } from '../db/viewer_summary';
import { viewersFlags } from '../db/status_page';
import { statusesByIds, type Status } from '../db/statuses';
import { renderStatuses } from '../render/status';
import { filterResultsFor, type FilterResultContext } from '../filters/results';
import { followEdge, followEdges } from '../db/follows';
import { quoteApprovalFor, quoteApprovalNeedsFollow } from '../policy/quotes';
import { quoteAuthorIds, quoteFollowAsks, quoteOverlayFor, streamedQuoteOf } from './quotes';

type Rendered = Record<string, unknown>;

/** A status as it is streamed: the status itself and, for a reblog, its original. */
export type StatusView = { status: Status; original?: Status };

/** The statuses whose flags a rendering shows: the reblog and its original, or the status. */
const partsOf = (view: StatusView): Status[] => (view.original ? [view.status, view.original] : [view.status]);

/** The viewer-independent rendering; undefined when the status cannot be shown (author or original gone). */
export async function renderShared(view: StatusView): Promise<Rendered | undefined> {
  const [rendered] = await renderStatuses([view.status], undefined);
  return rendered;
}

/**
 * The rendering of `view` for each of `viewerIds`, from the shared one: one
 * batch read of every viewer's flag keys (100 keys per call), and each viewer's
 * filters of the context they receive it in (`contextOf`, home by default) for
 * `filtered`, as Mastodon's streaming server adds it per subscriber: one Query
 * per receiver (only accounts with an open stream receive).
 */
/**
 * Several receivers: their account items in one batch read (100 per call) say who has never had a filter, a
 * bookmark or a thread mute, and above which status nobody of them favourited or reblogged anything
 * (lib/db/viewer_summary.ts); only what they may have is read. A new post heard by 1,000 listeners then makes
 * 10 reads of accounts rather than 1,000 queries of filters and 4,000 flag keys. One receiver: read directly.
 */
async function knownFromAccounts(viewers: string[], alsoRead: string[] = []): Promise<Map<string, Account>> {
  // A quote's states need every receiver's account and the quoted authors': the same one batch read.
  if (viewers.length < 2 && alsoRead.length === 0) return new Map();
  const read = await accountsByIds([...new Set([...viewers, ...alsoRead])]);
  for (const v of viewers) {
    const account = read.get(v);
    if (account) seedKnownEmpty(account);
  }
  return read;
}

export async function personalize(
  view: StatusView,
  shared: Rendered,
  viewerIds: string[],
  contextOf: (viewerId: string) => FilterResultContext = () => 'home',
): Promise<Map<string, Rendered>> {
  const viewers = [...new Set(viewerIds)];
  const parts = partsOf(view);
  const quotable = view.original ?? view.status;
  const quote = await streamedQuoteOf(quotable, view.original !== undefined);
  const accounts = await knownFromAccounts(viewers, quote ? quoteAuthorIds(quote) : []);
  // The quoted status is shown with the receiver's flags and filters too: its keys join the same batches.
  const shown = quote ? [...parts, quote.quoted] : parts;
  // The authors each receiver's follow edge is asked of: the status's for a `followers` quote policy, the quoted
  // status's for its policy or a private one (one read for each receiver that needs any, none for the others).
  const followAsks = (v: string) => [...new Set([...(quoteApprovalNeedsFollow(quotable, v) ? [quotable.accountId] : []), ...(quote ? quoteFollowAsks(quote, v) : [])])];
  const [read, results, following] = await Promise.all([
    viewersFlags(viewers, shown),
    Promise.all(viewers.map(async (v) => [v, await filterResultsFor(v, shown, contextOf(v))] as const)).then((all) => new Map(all)),
    Promise.all(viewers.map(async (v) => [v, await followsAmong(v, followAsks(v))] as const)).then((all) => new Map(all)),
  ]);
  const follows = (viewerId: string, accountId: string) => following.get(viewerId)?.has(accountId) === true;
  const sharedQuoting = view.original && isRecord(shared.reblog) ? shared.reblog : shared;
  const quotes = quote ? await quoteOverlayFor(quote, sharedQuoting.quote, viewers, accounts, follows) : undefined;

  const overlay = (rendered: Rendered, s: Status, viewerId: string, proper: Status = s): Rendered => {
    const { flags, vote } = read(viewerId, s);
    const out: Rendered = {
      ...rendered,
      favourited: flags.favourited,
      reblogged: flags.reblogged,
      muted: flags.muted,
      bookmarked: flags.bookmarked,
      filtered: results.get(viewerId)?.get(s.id) ?? [],
    };
    if (s.accountId === viewerId && !s.reblogOfId) out.pinned = flags.pinned;
    // QuoteApproval.current_user is the receiver's (a reblog's is its original's, as the page renders it).
    if (isRecord(rendered.quote_approval)) {
      out.quote_approval = { ...rendered.quote_approval, current_user: quoteApprovalFor(proper, viewerId, () => follows(viewerId, proper.accountId)) };
    }
    // The quote's state and quoted status are the receiver's (lib/streaming/quotes.ts).
    if (quotes && s.id === quotable.id) out.quote = quotes.quoteFor(viewerId, (r, quoted) => overlay(r, quoted, viewerId));
    if (s.pollId && isRecord(rendered.poll)) {
      const voted = vote();
      out.poll = { ...rendered.poll, voted: voted !== undefined || viewerId === s.accountId, own_votes: voted?.choices ?? [] };
    }
    return out;
  };

  const out = new Map<string, Rendered>();
  for (const viewerId of viewers) {
    const outer = overlay(shared, view.status, viewerId, quotable);
    if (view.original && isRecord(shared.reblog)) outer.reblog = overlay(shared.reblog, view.original, viewerId);
    out.set(viewerId, outer);
  }
  return out;
}

/** Whether a personalized rendering carries a match of a `hide` filter: such a status is not sent to that viewer. */
export const hiddenByFilter = (rendered: Rendered | undefined): boolean =>
  Array.isArray(rendered?.filtered) &&
  rendered.filtered.some((r: unknown) => isRecord(r) && isRecord(r.filter) && r.filter.filter_action === 'hide');

/** Which of `accountIds` the viewer follows: no read for none, one exact read for one, one batch for more. */
async function followsAmong(viewerId: string, accountIds: string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  if (accountIds.length === 1) return (await followEdge(viewerId, accountIds[0]!)) !== undefined ? new Set(accountIds) : new Set();
  return new Set((await followEdges(viewerId, accountIds)).keys());
}

const isRecord = (value: unknown): value is Rendered => typeof value === 'object' && value !== null && !Array.isArray(value);

const renderedIds = z.object({ id: z.string(), reblog: z.object({ id: z.string() }).nullable().optional() });

/**
 * A shared rendering (as logged once for every reader of a public or hashtag
 * channel) personalized for one reader: the statuses it shows are read again
 * (one batch read) for the keys of the reader's flags (a second). Answers the
 * shared payload unchanged when the statuses are gone meanwhile, and undefined when
 * the reader's `hide` filter matches it (not sent to them).
 */
export async function personalizePayload(payload: string, viewerId: string, context: FilterResultContext = 'public'): Promise<string | undefined> {
  const parsed: unknown = JSON.parse(payload);
  const ids = renderedIds.safeParse(parsed);
  if (!ids.success || !isRecord(parsed)) return payload;
  const reblogId = ids.data.reblog?.id;
  const found = await statusesByIds(reblogId ? [ids.data.id, reblogId] : [ids.data.id]);
  const status = found.get(ids.data.id);
  const original = reblogId ? found.get(reblogId) : undefined;
  if (!status || (reblogId && !original)) return payload;
  const mine = (await personalize({ status, original }, parsed, [viewerId], () => context)).get(viewerId);
  if (hiddenByFilter(mine)) return undefined;
  return mine ? JSON.stringify(mine) : payload;
}

/**
 * API Gateway's limit on one WebSocket message (postToConnection's data): 128 KiB. A larger frame is
 * refused, so the client would hear nothing of the status.
 */
export const MAX_FRAME_BYTES = 128 * 1024;

const escapeAttr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A status's content replaced by a link to it, as a client shows any status whose text it must fetch to read. */
const withLinkForContent = (status: Rendered): Rendered => {
  const href = typeof status.url === 'string' ? status.url : typeof status.uri === 'string' ? status.uri : '';
  return {
    ...status,
    content: href ? `<p><a href="${escapeAttr(href)}">${escapeAttr(href)}</a></p>` : '<p></p>',
    ...('text' in status ? { text: null } : {}),
    ...(isRecord(status.reblog) ? { reblog: withLinkForContent(status.reblog) } : {}),
  };
};

/**
 * A status payload that fits a WebSocket frame of `limit` bytes around `overhead` bytes of framing, for
 * `update` and `status.update`: the payload itself when it fits; else the same Status with its content (and
 * its original's) replaced by a link to it and `text` nulled, still a whole Status as Mastodon clients expect
 * of these events (they open the status to read it); undefined when even that is too large (the event is
 * not sent: clients fetch the status on the next timeline load).
 */
export function fitStatusPayload(payload: string, overhead: number, limit = MAX_FRAME_BYTES): string | undefined {
  // JSON.stringify of the payload string escapes it again: bound that size, not the raw one.
  const framed = (p: string) => Buffer.byteLength(JSON.stringify(p)) + overhead;
  if (framed(payload) <= limit) return payload;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const shorter = JSON.stringify(withLinkForContent(parsed));
  return framed(shorter) <= limit ? shorter : undefined;
}
