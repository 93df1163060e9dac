// The instance's weekly activity (GET /api/v1/instance/activity): for each of the last 12 weeks, the local
// statuses posted, the distinct accounts that signed in and the accounts registered. Every number is a counter
// kept when the thing happened (lib/db/stats.ts, lib/db/activity.ts): two reads, whatever the instance's size.
import { WEEK_MS, weekOf, weeklyLogins } from '../db/activity';
import { weeklyInstanceCounts } from '../db/stats';

/** Mastodon shows 12 weeks, the current one first. */
export const ACTIVITY_WEEKS = 12;

export type WeekActivity = { week: string; statuses: number; logins: number; registrations: number };

export async function instanceActivity(now: Date = new Date()): Promise<WeekActivity[]> {
  const weeks = Array.from({ length: ACTIVITY_WEEKS }, (_, i) => weekOf(new Date(now.getTime() - i * WEEK_MS)));
  const [logins, counts] = await Promise.all([weeklyLogins(weeks), weeklyInstanceCounts(weeks)]);
  return weeks.map((week) => ({
    week,
    statuses: counts.get(week)?.statuses ?? 0,
    logins: logins.get(week) ?? 0,
    registrations: counts.get(week)?.registrations ?? 0,
  }));
}

/** Mastodon lets caches keep the weekly activity for a day. */
export const ACTIVITY_CACHE_CONTROL = 'public, max-age=86400';
