// What may trend, and which interactions count toward it (after Mastodon's
// Trends::Statuses#eligible? and Trends::Links#register): trends are a public
// place, so only public statuses without a content warning, not marked
// sensitive, not replies, by authors who opted into discovery and whose server
// the operator has not silenced. What shows publicly is also a moderator's call
// (Mastodon's review queue): an item approved shows, one rejected never does, one
// nobody reviewed shows only when the instance's trendable_by_default is on.
// Mastodon's per-language trends are left out.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { timeOfId } from '../ids';
import { severityOf } from './instance_domains';
import { isPublic, openToAnyone } from './visibility';

/** A status stops gaining (and showing) trend score two days after it was posted. */
export const TREND_MAX_AGE_MS = 2 * 24 * 60 * 60 * 1000;

/** Young enough to trend at `now`: its id carries its time, so the ranking can tell without reading it. */
export const youngEnoughToTrend = (statusId: string, now: Date): boolean => now.getTime() - timeOfId(statusId).getTime() <= TREND_MAX_AGE_MS;

/** The status itself may trend (read again when shown: an edit may have added a warning since). */
export const statusMayTrend = (s: Pick<Status, 'visibility' | 'reblogOfId' | 'inReplyToId' | 'spoilerText' | 'sensitive'>): boolean =>
  isPublic(s) && s.reblogOfId === null && s.inReplyToId === null && s.spoilerText.trim() === '' && !s.sensitive;

/** Its author lets it: discoverable, on a server the operator has not silenced (Mastodon's account.silenced?). */
export const authorMayTrend = async (author: Pick<Account, 'discoverable' | 'domain'>): Promise<boolean> =>
  author.discoverable && (await severityOf(author.domain)) === undefined;

/**
 * Does `actorId` interacting with `status` at `at` count? Never the author's own, never
 * an ineligible or old status. The author is asked separately (it costs a read).
 */
export const interactionMayCount = (status: Status, actorId: string, at: Date): boolean =>
  status.accountId !== actorId && statusMayTrend(status) && youngEnoughToTrend(status.id, at);

/** A reply counts toward its parent's trend only when anyone may read it (a private answer is nobody's signal). */
export const replyCountsTowardTrends = (reply: Pick<Status, 'visibility' | 'inReplyToId'>): boolean => reply.inReplyToId !== null && openToAnyone(reply);

/**
 * Trends::Links#register: a public status, without a warning or the sensitive mark, by an
 * account on a server the operator has not silenced. (Discoverability is the status trends'
 * rule, not the links': a link is not its sharer's profile.)
 */
export const linkShareMayCount = async (status: Status, author: Pick<Account, 'domain'>): Promise<boolean> =>
  isPublic(status) && status.spoilerText.trim() === '' && !status.sensitive && (await severityOf(author.domain)) === undefined;

/**
 * Mastodon's trendable?: the first decision taken, from the most particular (the item itself) to the most general
 * (a link's publisher), else the instance's trendable_by_default. `decisions`: true approved, false rejected,
 * null or undefined nobody decided.
 */
export const reviewAllows = (decisions: (boolean | null | undefined)[], trendableByDefault: boolean): boolean => {
  for (const decision of decisions) if (typeof decision === 'boolean') return decision;
  return trendableByDefault;
};

/** Mastodon's requires_review?: nobody decided on the item (nor on a link's publisher). */
export const requiresReview = (decisions: (boolean | null | undefined)[]): boolean => decisions.every((d) => typeof d !== 'boolean');
