// Trending hashtags and the Tag entity with its history.
//
// Score (after Mastodon's Trends::Tags, simplified): for a day d,
//   observed = distinct accounts that used the tag publicly on d,
//   expected = max(1, mean distinct accounts per day over the 6 days before d),
//   score(d) = (observed - expected)² / expected   when observed > expected, else 0.
// A tag's score is max(score(today), score(yesterday) / 2), so a tag does not
// vanish at midnight UTC (Mastodon decays its scores the same way). Tags
// scoring 0 are not trending; ties go to more uses this week, then the name.
// The public list shows those their review allows (lib/policy/trends.ts reviewAllows:
// approved, or unreviewed while trendable_by_default is on); moderators see them all.
import { pastWeek, tagHistories, tagsUsedOn, type TagDay } from '../db/tags';
import { recentInstanceSettings } from '../db/instance';
import { trendReviews, type TrendReview } from '../db/trends';
import { reviewAllows } from '../policy/trends';
import { renderTag, type History, type RenderedTag } from '../render/tag';

export type { History };

const midnight = (day: string) => String(Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000));

/** History for the given days (today first), zeros where the tag was not used. */
export function historyOf(tag: string, days: string[], byDay: Map<string, Map<string, TagDay>>): History {
  return days.map((day) => {
    const d = byDay.get(day)?.get(tag);
    return { day: midnight(day), uses: String(d?.uses ?? 0), accounts: String(d?.accounts ?? 0) };
  });
}

const accountsOn = (tag: string, day: string | undefined, byDay: Map<string, Map<string, TagDay>>) =>
  day ? (byDay.get(day)?.get(tag)?.accounts ?? 0) : 0;

function dayScore(tag: string, index: number, days: string[], byDay: Map<string, Map<string, TagDay>>): number {
  const observed = accountsOn(tag, days[index], byDay);
  const before = days.slice(index + 1, index + 7);
  const mean = before.length ? before.reduce((sum, day) => sum + accountsOn(tag, day, byDay), 0) / before.length : 0;
  const expected = Math.max(1, mean);
  return observed > expected ? (observed - expected) ** 2 / expected : 0;
}

export function trendScore(tag: string, days: string[], byDay: Map<string, Map<string, TagDay>>): number {
  return Math.max(dayScore(tag, 0, days, byDay), dayScore(tag, 1, days, byDay) / 2);
}

/** A tag scoring now, with its review (moderators see them all). */
export type RankedTag = { tag: string; name: string; score: number; uses: number; review: TrendReview | undefined; allowed: boolean };

/**
 * Every tag scoring above 0 today, best first, with its review and the week of history it was scored on;
 * reads the 7 day partitions (plus the day before the week, for yesterday's baseline) and the reviews.
 */
export async function rankTags(now: Date = new Date()): Promise<{ ranked: RankedTag[]; week: string[]; byDay: Map<string, Map<string, TagDay>> }> {
  const week = pastWeek(now);
  const scoreDays = [...week, ...pastWeek(new Date(now.getTime() - 7 * 24 * 60 * 60 * 1000)).slice(0, 1)];
  const [byDay, reviews, settings] = await Promise.all([tagsUsedOn(scoreDays), trendReviews(), recentInstanceSettings()]);
  const today = byDay.get(week[0] ?? '') ?? new Map<string, TagDay>();
  const yesterday = byDay.get(week[1] ?? '') ?? new Map<string, TagDay>();
  const candidates = new Map<string, string>();
  for (const d of [...yesterday.values(), ...today.values()]) candidates.set(d.tag, d.name);
  const uses = (tag: string) => week.reduce((sum, day) => sum + (byDay.get(day)?.get(tag)?.uses ?? 0), 0);
  const ranked = [...candidates.keys()]
    .map((tag) => {
      const review = reviews.tag.get(tag);
      return { tag, name: review?.displayName ?? candidates.get(tag) ?? tag, score: trendScore(tag, scoreDays, byDay), uses: uses(tag), review, allowed: reviewAllows([review?.trendable], settings.trendableByDefault) };
    })
    .filter((t) => t.score > 0)
    .sort((a, b) => b.score - a.score || b.uses - a.uses || a.tag.localeCompare(b.tag));
  return { ranked, week, byDay };
}

/**
 * Trending tags the public sees, with a week of history: those their review allows (approved, or
 * unreviewed while trendable_by_default is on; the operator's `trends hide` is a rejection).
 */
export async function trendingTags(limit: number, now: Date = new Date()): Promise<RenderedTag[]> {
  const { ranked, week, byDay } = await rankTags(now);
  return ranked
    .filter((t) => t.allowed)
    .slice(0, limit)
    .map((t) => renderTag({ tag: t.tag, name: t.name }, historyOf(t.tag, week, byDay)));
}

/** Tags (normalized, with their names) rendered with a week of history (one batch read). */
export async function tagsWithHistory(tags: { tag: string; name: string }[], now: Date = new Date()) {
  const week = pastWeek(now);
  const byDay = await tagHistories(tags.map((t) => t.tag), week);
  return tags.map((t) => renderTag(t, historyOf(t.tag, week, byDay)));
}
