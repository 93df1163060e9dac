// Instance-wide counters (users, statuses, known domains) on one item, read by
// /api/v1/instance, /api/v2/instance and NodeInfo.
//
// Every post, deletion and registration on the instance moves one of them, so the
// item is the hottest in the table: inside the posting transaction, two posts at
// the same moment conflicted and one was cancelled. They are moved with a plain
// atomic ADD after the write they count has committed instead: a cancelled or
// refused write counts nothing, a committed one counts once (a single ADD is never
// refused for another ADD; DynamoDB serialises them on the item). The one way to
// miss a count is the function stopping between the commit and the ADD. Sharding
// the item would keep the count inside the transaction but make every read of the
// instance cost one read per shard, for counters nobody needs exact to the post.
import { z } from 'zod';
import { log } from '../log';
import { countDaily } from './daily_stats';
import * as keys from './keys';
import { WEEK_MS, weekOf } from './activity';
import { getItem, updateItem } from './table';

const statsItem = z.object({
  userCount: z.number().int().default(0),
  statusCount: z.number().int().default(0),
  domainCount: z.number().int().default(0),
});
export type InstanceStats = z.infer<typeof statsItem>;

/** What GET /api/v1/instance/activity reports per week, besides logins (lib/db/activity.ts counts those). */
export type WeeklyCounter = 'statuses' | 'registrations';
/** Which instance counters are also counted per week, when they go up: local statuses posted, local accounts registered. */
const WEEKLY_COUNTERS: Partial<Record<keyof InstanceStats, WeeklyCounter>> = { statusCount: 'statuses', userCount: 'registrations' };
/**
 * The weekly counts are attributes of the statistics item (`week:<monday>:statuses`), read with it. Each
 * count removes those of weeks just past the 12 shown, so the item holds about 14 weeks, not the instance's
 * whole history (a week with no post at all keeps its stale neighbours: a few bytes).
 */
const weekAttribute = (week: string, counter: WeeklyCounter) => `week:${week}:${counter}`;
const STALE_WEEKS = [13, 14, 15, 16];

/** The statuses and registrations counted in each of some weeks (each named by its Monday, YYYY-MM-DD): one read. */
export async function weeklyInstanceCounts(weeks: string[]): Promise<Map<string, Record<WeeklyCounter, number>>> {
  const stored = await getItem(keys.instanceStats(), z.record(z.unknown()));
  const count = (week: string, counter: WeeklyCounter) => {
    const value = stored?.[weekAttribute(week, counter)];
    return typeof value === 'number' ? Math.max(0, value) : 0;
  };
  return new Map(weeks.map((w) => [w, { statuses: count(w, 'statuses'), registrations: count(w, 'registrations') }]));
}

/** The counters; an instance that never counted anything has zeros. */
export async function instanceStats(): Promise<InstanceStats> {
  const stored = await getItem(keys.instanceStats(), statsItem);
  const stats = stored ?? statsItem.parse({});
  // Counters move with concurrent ADDs; never show a transient negative.
  return { userCount: Math.max(0, stats.userCount), statusCount: Math.max(0, stats.statusCount), domainCount: Math.max(0, stats.domainCount) };
}

/**
 * Moves an instance counter once the write it counts has committed. The write
 * stands even if counting fails (logged): failing the request would make the
 * client retry something that already happened.
 */
export async function countOnInstance(counter: keyof InstanceStats, delta: number, at: Date = new Date()): Promise<void> {
  // A sign-up is also the day's new user (the dashboard's new_users), beside the instance total.
  if (counter === 'userCount' && delta > 0) await countDaily('newUsers', delta, at);
  const weekly = delta > 0 ? WEEKLY_COUNTERS[counter] : undefined;
  const names: Record<string, string> = { '#c': counter };
  let expression = 'ADD #c :d';
  if (weekly) {
    // The week's counter rides on the same update: counting a post or a registration per week costs no extra call.
    names['#w'] = weekAttribute(weekOf(at), weekly);
    expression += ', #w :d';
    const stale = STALE_WEEKS.map((ago) => weekAttribute(weekOf(new Date(at.getTime() - ago * WEEK_MS)), weekly));
    stale.forEach((name, i) => (names[`#s${i}`] = name));
    expression += ` REMOVE ${stale.map((_, i) => `#s${i}`).join(', ')}`;
  }
  try {
    await updateItem(
      { Key: keys.instanceStats(), UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: { ':d': delta } },
      statsItem,
    );
  } catch (err) {
    log.error('instance counter not moved', { counter, delta, err });
  }
}
