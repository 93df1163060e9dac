// The report's data from what a year's reads bring, page by page (schema version 2, the parts of Mastodon's
// AnnualReport::SOURCES today: Archetype, TopStatuses, TimeSeries, TopHashtags). Kept apart from the reads so that
// the rules are plain functions of the pages: the tally holds twelve months of counts, one count per hashtag and
// the three leading statuses, never the statuses themselves.
//
// Parts of Mastodon's schema 1 that are not here, as Mastodon's schema 2 left them out too: type_distribution,
// most_used_apps, commonly_interacted_with_accounts, most_reblogged_accounts and percentiles (the last needs every
// account's yearly count, instance-wide, which nothing here keeps).
import type { AnnualReportData, YearStatus } from '../db/annual_reports';

/** Mastodon's AnnualReport::Archetype threshold: below this many posts a year (replies and reblogs included), a lurker. */
export const ARCHETYPE_AVERAGE_PER_YEAR = 113;
/** Mastodon's AnnualReport::TopHashtags: at most 40, each used more than once. */
export const TOP_HASHTAGS = 40;
export const HASHTAG_MINIMUM_COUNT = 1;

type Counted = 'reblogsCount' | 'favouritesCount' | 'repliesCount';
type Leader = { id: string; count: number };

export type YearTally = {
  accountId: string;
  statusesPerMonth: number[];
  followingPerMonth: number[];
  followersPerMonth: number[];
  standalone: number;
  replies: number;
  reblogs: number;
  polls: number;
  /** Uses of each hashtag (stored form), and how the first status using it spelled it. */
  hashtags: Map<string, { count: number; spelling: string }>;
  /** Per kind, the statuses with the most of it, best first: the top three, enough to pick three distinct ones. */
  leaders: Record<Counted, Leader[]>;
};

export const newTally = (accountId: string): YearTally => ({
  accountId,
  statusesPerMonth: Array(12).fill(0),
  followingPerMonth: Array(12).fill(0),
  followersPerMonth: Array(12).fill(0),
  standalone: 0,
  replies: 0,
  reblogs: 0,
  polls: 0,
  hashtags: new Map(),
  leaders: { reblogsCount: [], favouritesCount: [], repliesCount: [] },
});

/** Month index (0-11) of an ISO timestamp, in UTC as Mastodon's DATE_PART on its UTC timestamps. */
const monthOf = (iso: string) => new Date(iso).getUTCMonth();

/** Keeps the three statuses with the most of a kind; on a tie the older status (smaller id, read first) stays ahead. */
function offerLeader(list: Leader[], id: string, count: number): void {
  if (count <= 0) return;
  const at = list.findIndex((leader) => count > leader.count);
  if (at === -1) {
    if (list.length < 3) list.push({ id, count });
    return;
  }
  list.splice(at, 0, { id, count });
  if (list.length > 3) list.pop();
}

/** Counts one page of the account's statuses of the year. */
export function tallyStatuses(tally: YearTally, statuses: YearStatus[]): void {
  for (const status of statuses) {
    tally.statusesPerMonth[monthOf(status.createdAt)]!++;
    // Mastodon's scopes: a reply to oneself is a thread, counted as a standalone post (Status.without_replies).
    const isReblog = status.reblogOfId !== null;
    const isReplyToOther = status.inReplyToId !== null && status.inReplyToAccountId !== tally.accountId;
    if (isReblog) tally.reblogs++;
    if (isReplyToOther) tally.replies++;
    if (!isReblog && !isReplyToOther) tally.standalone++;
    if (status.pollId !== null) tally.polls++;

    const spellings = status.tagNames?.length === status.tags.length ? status.tagNames : status.tags;
    status.tags.forEach((tag, i) => {
      const entry = tally.hashtags.get(tag);
      if (entry) entry.count++;
      else tally.hashtags.set(tag, { count: 1, spelling: spellings[i] ?? tag });
    });

    // Top statuses are public posts of the account's own (a reblog has no counts of its own).
    if (status.visibility === 'public' && !isReblog) {
      offerLeader(tally.leaders.reblogsCount, status.id, status.reblogsCount);
      offerLeader(tally.leaders.favouritesCount, status.id, status.favouritesCount);
      offerLeader(tally.leaders.repliesCount, status.id, status.repliesCount);
    }
  }
}

/** Counts one page of follow edges made in the year, in the one direction. */
export function tallyFollows(perMonth: number[], edges: { createdAt: string }[]): void {
  for (const edge of edges) perMonth[monthOf(edge.createdAt)]!++;
}

/** Mastodon's AnnualReport::Archetype, from the year's counts. */
export function archetypeOf(tally: Pick<YearTally, 'standalone' | 'replies' | 'reblogs' | 'polls'>): AnnualReportData['archetype'] {
  const { standalone, replies, reblogs, polls } = tally;
  if (standalone + replies + reblogs < ARCHETYPE_AVERAGE_PER_YEAR) return 'lurker';
  if (reblogs > standalone * 2) return 'booster';
  if (polls > standalone * 0.1) return 'pollster';
  if (replies > standalone * 2) return 'replier';
  return 'oracle';
}

/**
 * Mastodon's AnnualReport::TopStatuses: the most reblogged, then the most favourited of the others, then the most
 * replied of the rest. A kind nobody interacted with names no status (Mastodon would name an arbitrary status
 * with a count of 0 when another kind of interaction created its counters).
 */
function topStatuses(leaders: YearTally['leaders']): AnnualReportData['top_statuses'] {
  const taken = new Set<string>();
  const pick = (list: Leader[]) => {
    const found = list.find((leader) => !taken.has(leader.id));
    if (found) taken.add(found.id);
    return found?.id ?? null;
  };
  const byReblogs = pick(leaders.reblogsCount);
  const byFavourites = pick(leaders.favouritesCount);
  const byReplies = pick(leaders.repliesCount);
  // In the key order Mastodon's jsonb column gives them back (shorter keys first).
  return { by_reblogs: byReblogs, by_replies: byReplies, by_favourites: byFavourites };
}

/** The hashtags used more than once, most used first (then by name, for an order that does not change between reads). */
export function topHashtagTags(tally: YearTally): { tag: string; count: number; spelling: string }[] {
  return [...tally.hashtags.entries()]
    .filter(([, entry]) => entry.count > HASHTAG_MINIMUM_COUNT)
    .map(([tag, entry]) => ({ tag, ...entry }))
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
    .slice(0, TOP_HASHTAGS);
}

/** The report's data, in the key order Mastodon's jsonb column answers with. */
export function reportData(tally: YearTally, displayNames: Map<string, string>): AnnualReportData {
  return {
    archetype: archetypeOf(tally),
    time_series: tally.statusesPerMonth.map((statuses, i) => ({
      month: i + 1,
      statuses,
      followers: tally.followersPerMonth[i]!,
      following: tally.followingPerMonth[i]!,
    })),
    top_hashtags: topHashtagTags(tally).map(({ tag, count, spelling }) => ({ name: displayNames.get(tag) ?? spelling, count })),
    top_statuses: topStatuses(tally.leaders),
  };
}
