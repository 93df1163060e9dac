// Trending statuses and links (Mastodon 4's Trends::Statuses and Trends::Links): counters kept
// at write time, decaying over days, read without scans. CONTRACT: the trends area owns lib/trends/.
//
// The score. Each counted event (an account's first interaction with a status, an
// account's first share of a link on a day) adds a weight that halves every HALF_LIFE:
// worth w at time t, it is worth w·2^((t−now)/H) now. Rewriting every score as time
// passes would be a scan; instead each UTC day has its own partition, and an event at t
// adds w·2^((t−midnight)/H) to its candidate's counter in the partition of t's day:
// its value "decayed to that day's midnight", which never changes afterwards. Within a
// partition, ordering by the stored value is ordering by today's decayed score (every
// counter shares the factor 2^((midnight−now)/H)); across days, that factor converts
// them. A read ranks the union of today's and yesterday's partitions: two Queries.
//
// Bounds. A day partition holds at most CANDIDATES_PER_DAY candidates (a counter,
// written in the candidate's own transaction, refuses more): a trends read is bounded
// whatever the traffic. Statuses older than two days stop counting and showing
// (lib/policy/trends.ts), and yesterday's events weigh 2^(−24h/H) = 1/8 at midnight.
//
// What counts (lib/policy/trends.ts): a public, non-reply status without a warning or
// the sensitive mark, by a discoverable author on a server the operator has not
// silenced; favourites, reblogs and public replies from anyone but the author, each
// account once per status whatever it does (a marker, in the same transaction as the
// score: retries, unfavourite and favourite again add nothing). A link counts the
// distinct accounts sharing it in public statuses. Unlike Mastodon, nothing decays
// from the status's creation.
//
// Review (Mastodon's): every candidate is ranked, and moderators see them all
// (GET /api/v1/admin/trends/*); the public lists show what lib/policy/trends.ts
// reviewAllows: approved items, and unreviewed ones only while the instance's
// trendable_by_default is on; a rejected item (or the operator's `trends hide`)
// never. The decisions come from the one Query of the reviews partition the
// ranking makes anyway, the setting from the memo of the instance settings.
import { accountById, type Account } from '../db/accounts';
import { cardsByUrls, type PreviewCard } from '../db/cards';
import { statusById, statusesByIds, type Status } from '../db/statuses';
import {
  addLinkStatus,
  countLinkShareOn,
  countStatusInteraction,
  linkHistories,
  linkIdOf,
  publisherDomainOf,
  trendReviews,
  type TrendReviews,
  linkTrendState,
  linkTrendDays,
  midnightOf,
  statusTrendDays,
  trendDayOf,
  type StatusTrendDay,
} from '../db/trends';
import { recentInstanceSettings } from '../db/instance';
import { log } from '../log';
import { hiddenFor, hidesAccount, visibleTo } from '../policy';
import {
  authorMayTrend,
  interactionMayCount,
  linkShareMayCount,
  replyCountsTowardTrends,
  requiresReview,
  reviewAllows,
  statusMayTrend,
  youngEnoughToTrend,
} from '../policy/trends';

export type TrendInteraction = 'favourite' | 'reblog' | 'reply';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** How fast an event's weight halves. Eight hours: Mastodon's half-life for a link's score. */
export const HALF_LIFE_MS = 8 * HOUR_MS;
/** Candidates kept per day partition, for statuses and for links each. */
export const CANDIDATES_PER_DAY = 1000;
/**
 * Distinct accounts (besides the author) an item needs before it trends. Mastodon asks 5
 * and a moderator's review; a small instance with no review step trends at 2.
 */
export const MIN_ACCOUNTS = 2;
/** Each kind counts the same, as Mastodon's observed = reblogs + favourites; an account counts once anyway. */
const WEIGHTS: Record<TrendInteraction, number> = { favourite: 1, reblog: 1, reply: 1 };
/** Days of a link's `history`, today first, as a tag's. */
export const HISTORY_DAYS = 7;

/** What an event at `at` adds, in the units of its own day's partition. */
export const weightAt = (at: Date, weight = 1): number => weight * 2 ** ((at.getTime() - midnightOf(trendDayOf(at))) / HALF_LIFE_MS);
/** A stored day counter's worth at `now`. */
export const decayedAt = (stored: number, day: string, now: Date): number => stored * 2 ** ((midnightOf(day) - now.getTime()) / HALF_LIFE_MS);

/** Today and yesterday (UTC): the partitions a ranking reads. */
const rankedDays = (now: Date) => [trendDayOf(now), trendDayOf(new Date(now.getTime() - DAY_MS))];

/** Counts an interaction with a status (local or received from another server) toward the status trends. */
export async function countInteraction(status: Status, kind: TrendInteraction, actorId: string, at: Date = new Date()): Promise<void> {
  // Trends are a best-effort signal: a failure here must not fail the favourite, reblog or reply that caused it.
  try {
    if (!interactionMayCount(status, actorId, at)) return;
    const author = await accountById(status.accountId);
    if (!author || !(await authorMayTrend(author))) return;
    const outcome = await countStatusInteraction({ id: status.id, accountId: author.id, domain: author.domain }, actorId, at, weightAt(at, WEIGHTS[kind]), CANDIDATES_PER_DAY);
    if (outcome === 'day-full') log.info('trends: day partition full, status not a candidate', { statusId: status.id });
  } catch (err) {
    log.warn('trends: interaction not counted', { statusId: status.id, kind, actorId, err });
  }
}

/** A reply counts toward its parent's trend as an interaction (lib/policy/trends.ts says which replies do). */
export async function countReply(reply: Status, at: Date = new Date()): Promise<void> {
  if (reply.inReplyToId === null || !replyCountsTowardTrends(reply)) return;
  try {
    const parent = await statusById(reply.inReplyToId);
    if (parent) await countInteraction(parent, 'reply', reply.accountId, at);
  } catch (err) {
    log.warn('trends: reply not counted', { statusId: reply.id, err });
  }
}

/** Counts a status sharing a link (called by the cards worker once the link's card is known) toward the link trends. */
export async function countLinkShare(url: string, status: Status, at: Date = new Date()): Promise<void> {
  try {
    const author = await accountById(status.accountId);
    if (!author || !(await linkShareMayCount(status, author))) return;
    // The link's timeline lists the status beside the count, whatever the day's cap decides.
    const [outcome] = await Promise.all([
      countLinkShareOn(url, { statusId: status.id, accountId: author.id }, at, weightAt(at), CANDIDATES_PER_DAY),
      addLinkStatus(url, status.id),
    ]);
    if (outcome === 'day-full') log.info('trends: day partition full, link not a candidate', { url });
  } catch (err) {
    log.warn('trends: link share not counted', { url, statusId: status.id, err });
  }
}

// ---- ranking ----

/** What moderators decided on a candidate, and what follows for the public lists. */
export type Reviewed = {
  /** A rejection (the operator's `trends hide` included). */
  hidden: boolean;
  /** Shown publicly: approved, or unreviewed while trendable_by_default is on. */
  allowed: boolean;
  requiresReview: boolean;
};
export type RankedStatus = { statusId: string; accountId: string; domain: string | null; score: number; accounts: number } & Reviewed;
export type RankedLink = { hash: string; id: string; url: string; score: number; accounts: number; uses: number } & Reviewed;

const byScore = <T extends { score: number }>(a: T, b: T) => b.score - a.score;

/** The decisions and the setting every ranking reads: one Query and a memo. */
const reviewState = async (): Promise<{ reviews: TrendReviews; byDefault: boolean }> => {
  const [reviews, settings] = await Promise.all([trendReviews(), recentInstanceSettings()]);
  return { reviews, byDefault: settings.trendableByDefault };
};

const reviewed = (decisions: (boolean | null | undefined)[], byDefault: boolean): Reviewed => ({
  hidden: decisions[0] === false,
  allowed: reviewAllows(decisions, byDefault),
  requiresReview: requiresReview(decisions),
});

/** A publisher's decision for a link's host: its own, else its parent domain's (Mastodon's matching_domain). */
const publisherDecision = (reviews: TrendReviews, url: string): boolean | null => {
  const domain = publisherDomainOf(url);
  if (!domain) return null;
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const decision = reviews.publisher.get(labels.slice(i).join('.'))?.trendable;
    if (typeof decision === 'boolean') return decision;
  }
  return null;
};

/**
 * Every status candidate of today and yesterday with its score at `now`, best first, with its review
 * (moderators' lists show them all): below MIN_ACCOUNTS or older than two days left out.
 */
export async function rankStatuses(now: Date = new Date()): Promise<RankedStatus[]> {
  const [byDay, { reviews, byDefault }] = await Promise.all([statusTrendDays(rankedDays(now)), reviewState()]);
  const merged = new Map<string, { item: StatusTrendDay; score: number; accounts: number }>();
  for (const [day, items] of byDay) {
    for (const item of items) {
      const entry = merged.get(item.statusId) ?? { item, score: 0, accounts: 0 };
      entry.score += decayedAt(item.score, day, now);
      entry.accounts += item.accounts;
      merged.set(item.statusId, entry);
    }
  }
  return [...merged.values()]
    .filter((e) => e.accounts >= MIN_ACCOUNTS && youngEnoughToTrend(e.item.statusId, now))
    .map((e) => ({ ...e.item, score: e.score, accounts: e.accounts, ...reviewed([reviews.status.get(e.item.statusId)?.trendable], byDefault) }))
    .sort((a, b) => byScore(a, b) || (BigInt(b.statusId) > BigInt(a.statusId) ? 1 : -1));
}

/** Every link candidate of today and yesterday with its score at `now`, best first, with its review. */
export async function rankLinks(now: Date = new Date()): Promise<RankedLink[]> {
  const [byDay, { reviews, byDefault }] = await Promise.all([linkTrendDays(rankedDays(now)), reviewState()]);
  const merged = new Map<string, Omit<RankedLink, keyof Reviewed>>();
  for (const [day, items] of byDay) {
    for (const item of items) {
      const entry = merged.get(item.SK) ?? { hash: item.SK, id: linkIdOf(item.SK), url: item.url, score: 0, accounts: 0, uses: 0 };
      entry.score += decayedAt(item.score, day, now);
      entry.accounts += item.accounts;
      entry.uses += item.uses;
      merged.set(item.SK, entry);
    }
  }
  return [...merged.values()]
    .filter((e) => e.accounts >= MIN_ACCOUNTS)
    .map((e) => ({ ...e, ...reviewed([reviews.link.get(e.hash)?.trendable, publisherDecision(reviews, e.url)], byDefault) }))
    .sort((a, b) => byScore(a, b) || a.url.localeCompare(b.url));
}

/**
 * Does the link trend publicly now, as trendingLinks would list it (enough accounts over today
 * and yesterday, allowed by its review)? Mastodon's PreviewCardTrend.allowed; one batch read, not a ranking.
 */
export async function isTrendingLink(url: string, now: Date = new Date()): Promise<boolean> {
  const [state, settings] = await Promise.all([linkTrendState(url, rankedDays(now)), recentInstanceSettings()]);
  return state.accounts >= MIN_ACCOUNTS && reviewAllows([state.decision, state.publisherDecision], settings.trendableByDefault);
}

export type TrendPage = { offset: number; limit: number };

/**
 * The trending statuses `viewer` sees, `page.limit` from `page.offset`, and whether more follow.
 * As Mastodon's StatusTrend.allowed, one status per author (its best); the viewer's blocks,
 * mutes and domain blocks apply before the page is cut (the ranking carries each author and
 * server), so offsets page through the same list; what the page's statuses turn out to be
 * (deleted, edited behind a warning, on a server silenced since) is checked after.
 */
export async function trendingStatuses(viewer: Account | undefined, page: TrendPage, now: Date = new Date()): Promise<{ statuses: Status[]; more: boolean }> {
  const [ranked, hidden] = await Promise.all([rankStatuses(now), viewer ? hiddenFor(viewer.id) : undefined]);
  const authors = new Set<string>();
  const listed = ranked.filter((r) => {
    if (!r.allowed || authors.has(r.accountId) || (hidden && hidesAccount(hidden, { id: r.accountId, domain: r.domain }))) return false;
    authors.add(r.accountId);
    return true;
  });
  const cut = listed.slice(page.offset, page.offset + page.limit);
  const found = await statusesByIds(cut.map((r) => r.statusId));
  const candidates = cut.flatMap((r) => {
    const status = found.get(r.statusId);
    return status && statusMayTrend(status) ? [status] : [];
  });
  const statuses = await visibleTo(viewer, candidates, 'public', hidden ? { hidden } : {});
  return { statuses, more: listed.length > page.offset + page.limit };
}

export type History = { day: string; uses: string; accounts: string }[];

/** The last HISTORY_DAYS UTC days, today first. */
const pastDays = (now: Date) => Array.from({ length: HISTORY_DAYS }, (_, i) => trendDayOf(new Date(now.getTime() - i * DAY_MS)));

/** A ranked link with its card and its week of history, and its review (what moderators see of it). */
export type TrendingLink = { card: PreviewCard; history: History; id: string; requiresReview: boolean };

/** The cards and histories of a page cut from `listed`; a link whose card is not stored (yet) is left out. */
async function linksPage(listed: RankedLink[], page: TrendPage, now: Date): Promise<{ links: TrendingLink[]; more: boolean }> {
  const cut = listed.slice(page.offset, page.offset + page.limit);
  if (cut.length === 0) return { links: [], more: false };
  const days = pastDays(now);
  const [cards, histories] = await Promise.all([cardsByUrls(cut.map((r) => r.url)), linkHistories(cut.map((r) => r.hash), days)]);
  const links = cut.flatMap((r) => {
    const card = cards.get(r.url);
    if (!card) return [];
    const history = days.map((day) => {
      const counted = histories.get(day)?.get(r.hash);
      return { day: String(midnightOf(day) / 1000), uses: String(counted?.uses ?? 0), accounts: String(counted?.accounts ?? 0) };
    });
    return [{ card, history, id: r.id, requiresReview: r.requiresReview }];
  });
  return { links, more: listed.length > page.offset + page.limit };
}

/**
 * The trending links the public sees (allowed by their review), `page.limit` from `page.offset`, each with
 * its card and a week of history, and whether more follow.
 */
export async function trendingLinks(page: TrendPage, now: Date = new Date()): Promise<{ links: TrendingLink[]; more: boolean }> {
  return linksPage((await rankLinks(now)).filter((r) => r.allowed), page, now);
}

/** Every trending link, reviewed or not (GET /api/v1/admin/trends/links): what moderators review. */
export async function linksForReview(page: TrendPage, now: Date = new Date()): Promise<{ links: TrendingLink[]; more: boolean }> {
  return linksPage(await rankLinks(now), page, now);
}

/** One ranked link with its card and history (undefined without a card). */
export async function linksForOne(ranked: RankedLink, now: Date = new Date()): Promise<TrendingLink | undefined> {
  return (await linksPage([ranked], { offset: 0, limit: 1 }, now)).links[0];
}

/** A link trending now, by its admin id (the ranking is the index of what may be reviewed: two Queries). */
export async function rankedLinkById(id: string, now: Date = new Date()): Promise<RankedLink | undefined> {
  return (await rankLinks(now)).find((r) => r.id === id);
}

/** Every trending status, reviewed or not, one per candidate (GET /api/v1/admin/trends/statuses); deleted ones left out. */
export async function statusesForReview(page: TrendPage, now: Date = new Date()): Promise<{ statuses: { status: Status; requiresReview: boolean }[]; more: boolean }> {
  const ranked = await rankStatuses(now);
  const cut = ranked.slice(page.offset, page.offset + page.limit);
  const found = await statusesByIds(cut.map((r) => r.statusId));
  const statuses = cut.flatMap((r) => {
    const status = found.get(r.statusId);
    return status ? [{ status, requiresReview: r.requiresReview }] : [];
  });
  return { statuses, more: ranked.length > page.offset + page.limit };
}
