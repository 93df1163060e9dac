// A streamed status's quote, per receiver (Mastodon's StatusCacheHydrator, which hydrates the quoted status and the
// quote's state for each account): the shared rendering has no viewer, so an accepted quote there shows what a
// signed-out reader sees. Each receiver is shown the state lib/policy/quotes.ts decides for it (its own status;
// `unauthorized` when it may not see the quoted status or its author blocks it; `blocked_domain`,
// `blocked_account`, `muted_account`), and the quoted status with its own flags, as renderStatus(status, receiver)
// shows it.
//
// Cost, only for a status whose quote is accepted: the quoted status (and, where the page renderer reads it, the
// status that one quotes) read once per publication; the receivers' accounts and the quoted authors in the batch
// read the renderer makes of receivers' accounts anyway; the quoted status's flag keys in the receivers' flag
// batch; one batch read of up to four exact keys per (receiver, quoted author) for the receivers whose account says
// they have any block, mute or block received (lib/db/quote_standings.ts), none for the others; a receiver's follow
// edge only where a `followers` policy or a private quoted status asks it (one read for that receiver, as the
// quote policy's already is); and one render of the quoted status, only when the shared rendering could not show it.
import type { Account } from '../db/accounts';
import { quoteStandings } from '../db/quote_standings';
import { statusesByIds, type Status } from '../db/statuses';
import { acceptedQuoteState, quoteApprovalNeedsFollow, quoteFilterState, type QuoteStanding } from '../policy/quotes';
import { goneFor } from '../policy/sanctions';
import { mayView } from '../policy/view';
import { renderStatuses } from '../render/status';

type Rendered = Record<string, unknown>;

/** The states in which a quote shows its quoted status (as lib/render/status.ts shows it). */
const QUOTED_SHOWN = new Set(['accepted', 'blocked_account', 'blocked_domain', 'muted_account']);

/** An accepted quote a streamed status shows: the status carrying it, the quoted status, and the one that quotes in turn when read. */
export type StreamedQuote = {
  quoting: Status;
  quoted: Status;
  /** The status the quoted one quotes, read as the page renderer reads it (not under a reblog); undefined when unread or gone. */
  inner: Status | undefined;
};

/**
 * The accepted quote the streamed status (a reblog's original) shows, its quoted status read; undefined when it has
 * none or the quoted status is gone (every receiver then sees the shared rendering's state). Under a reblog the page
 * renderer does not read the quoted status's own quoted status, nor does this.
 */
export async function streamedQuoteOf(quoting: Status, underReblog: boolean): Promise<StreamedQuote | undefined> {
  const quote = quoting.quote;
  if (quote?.state !== 'accepted' || !quote.quotedStatusId) return undefined;
  const quoted = (await statusesByIds([quote.quotedStatusId])).get(quote.quotedStatusId);
  if (!quoted) return undefined;
  const innerId = !underReblog && quoted.quote?.state === 'accepted' ? quoted.quote.quotedStatusId : null;
  const inner = innerId ? (await statusesByIds([innerId])).get(innerId) : undefined;
  return { quoting, quoted, inner };
}

/** The accounts the quote's states depend on: the quoted authors (to be read with the receivers' accounts). */
export const quoteAuthorIds = (q: StreamedQuote): string[] => [
  ...new Set([q.quoted.accountId, ...(q.inner ? [q.inner.accountId] : q.quoted.quote?.quotedAccountId ? [q.quoted.quote.quotedAccountId] : [])]),
];

/** The authors whose follow edge from `viewerId` the quote asks for (a `followers` policy, a private status). */
export const quoteFollowAsks = (q: StreamedQuote, viewerId: string): string[] => {
  const asks = (s: Status) => s.accountId !== viewerId && s.visibility === 'private';
  return [...(quoteApprovalNeedsFollow(q.quoted, viewerId) || asks(q.quoted) ? [q.quoted.accountId] : []), ...(q.inner && asks(q.inner) ? [q.inner.accountId] : [])];
};

/** Could the receiver have any block, mute or block received (its account says so, or does not keep track)? */
const mayHide = (account: Account | undefined): boolean =>
  !account || !account.hidesTracked || account.hasBlocks || account.hasBlockedBy || account.hasMutes;

export type QuoteOverlay = {
  /** The Quote entity the receiver is shown; `overlay` lays the receiver's flags over the quoted status. */
  quoteFor: (viewerId: string, overlay: (rendered: Rendered, s: Status) => Rendered) => Rendered;
};

/**
 * The receivers' quote states, from their accounts and follow edges (read by the caller) and one batch of their
 * standings towards the quoted authors; `sharedQuote` is the shared rendering's Quote entity.
 */
export async function quoteOverlayFor(
  q: StreamedQuote,
  sharedQuote: unknown,
  viewers: string[],
  accounts: Map<string, Account>,
  follows: (viewerId: string, accountId: string) => boolean,
): Promise<QuoteOverlay> {
  const authorIds = quoteAuthorIds(q);
  const authors = authorIds.flatMap((id) => accounts.get(id) ?? []);
  const shared = isRecord(sharedQuote) && isRecord(sharedQuote.quoted_status) ? sharedQuote.quoted_status : undefined;
  const [standings, base] = await Promise.all([
    quoteStandings(viewers.filter((v) => mayHide(accounts.get(v))), authors),
    // The shared rendering could not show it (a private status, for nobody signed in): rendered once for all.
    shared ? shared : renderStatuses([q.quoted], undefined).then(([r]) => r),
  ]);
  const standing = (viewerId: string, authorId: string): QuoteStanding => standings(viewerId, authorId);

  const shownTo = async (viewerId: string, s: Status): Promise<boolean> => {
    const author = accounts.get(s.accountId);
    if (!author || goneFor(author, viewerId)) return false;
    return mayView(accounts.get(viewerId), s, { followsAuthor: follows(viewerId, s.accountId) });
  };
  const states = new Map<string, { top: string; nested: string | undefined }>();
  for (const v of viewers) {
    const top = acceptedQuoteState(q.quoted.accountId, v, await shownTo(v, q.quoted), () => standing(v, q.quoted.accountId));
    states.set(v, { top, nested: await nestedState(q, v, shownTo, standing) });
  }

  return {
    quoteFor: (viewerId, overlay) => {
      const state = states.get(viewerId);
      if (!state) return isRecord(sharedQuote) ? sharedQuote : { state: 'deleted', quoted_status: null };
      if (!QUOTED_SHOWN.has(state.top)) return { state: state.top, quoted_status: null };
      if (!base) return { state: 'deleted', quoted_status: null };
      const nestedQuote = q.quoted.quote && state.nested !== undefined
        ? { state: state.nested, quoted_status_id: QUOTED_SHOWN.has(state.nested) ? q.quoted.quote.quotedStatusId : null }
        : null;
      return { state: state.top, quoted_status: { ...overlay(base, q.quoted), quote: nestedQuote } };
    },
  };
}

/** The ShallowQuote state the quoted status's own quote shows the receiver (lib/render/status.ts's, for a nested quote). */
async function nestedState(
  q: StreamedQuote,
  viewerId: string,
  shownTo: (viewerId: string, s: Status) => Promise<boolean>,
  standing: (viewerId: string, authorId: string) => QuoteStanding,
): Promise<string | undefined> {
  const quote = q.quoted.quote;
  if (!quote) return undefined;
  if (quote.state !== 'accepted') return quote.state;
  if (!quote.quotedStatusId) return 'deleted';
  // Unread (under a reblog) or gone: what its author's standing says, as the page renderer judges it.
  if (!q.inner) return (quote.quotedAccountId && quoteFilterState(standing(viewerId, quote.quotedAccountId))) || 'accepted';
  const inner = q.inner;
  return acceptedQuoteState(inner.accountId, viewerId, await shownTo(viewerId, inner), () => standing(viewerId, inner.accountId));
}

const isRecord = (value: unknown): value is Rendered => typeof value === 'object' && value !== null && !Array.isArray(value);
