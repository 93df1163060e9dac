// Trending hashtags and the Tag entity with its history.
//
// Score (after Mastodon's Trends::Tags, simplified): for a day d,
//   observed = distinct accounts that used the tag publicly on d,
//   expected = max(1, mean distinct accounts per day over the 6 days before d),
//   score(d) = (observed - expected)² / expected   when observed > expected, else 0.
// A tag's score is max(score(today), score(yesterday) / 2), so a tag does not
// vanish at midnight UTC (Mastodon decays its scores the same way). Tags
// scoring 0 are not trending; ties go to more uses this week, then the name.
import { pastWeek, tagHistories, tagsUsedOn, type TagDay } from '../db/tags';
import { hiddenTrends } from '../db/trends';
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

/** Trending tags with a week of history; reads the 7 day partitions (plus the day before the week, for yesterday's baseline). */
export async function trendingTags(limit: number, now: Date = new Date()): Promise<RenderedTag[]> {
  const week = pastWeek(now);
  const scoreDays = [...week, ...pastWeek(new Date(now.getTime() - 7 * 24 * 60 * 60 * 1000)).slice(0, 1)];
  // Tags the operator hid (`npm run admin -- trends hide tag <name>`) never trend.
  const [byDay, hidden] = await Promise.all([tagsUsedOn(scoreDays), hiddenTrends()]);
  const today = byDay.get(week[0] ?? '') ?? new Map<string, TagDay>();
  const yesterday = byDay.get(week[1] ?? '') ?? new Map<string, TagDay>();
  const candidates = new Map<string, string>();
  for (const d of [...yesterday.values(), ...today.values()]) candidates.set(d.tag, d.name);
  const uses = (tag: string) => week.reduce((sum, day) => sum + (byDay.get(day)?.get(tag)?.uses ?? 0), 0);
  return [...candidates.keys()]
    .map((tag) => ({ tag, score: trendScore(tag, scoreDays, byDay), uses: uses(tag) }))
    .filter((t) => t.score > 0 && !hidden.tag.has(t.tag))
    .sort((a, b) => b.score - a.score || b.uses - a.uses || a.tag.localeCompare(b.tag))
    .slice(0, limit)
    .map((t) => renderTag({ tag: t.tag, name: candidates.get(t.tag) ?? t.tag }, historyOf(t.tag, week, byDay)));
}

/** Tags (normalized, with their names) rendered with a week of history (one batch read). */
export async function tagsWithHistory(tags: { tag: string; name: string }[], now: Date = new Date()) {
  const week = pastWeek(now);
  const byDay = await tagHistories(tags.map((t) => t.tag), week);
  return tags.map((t) => renderTag(t, historyOf(t.tag, week, byDay)));
}
