// Active users, as Mastodon reports them (instance usage, NodeInfo): the number
// of distinct accounts that signed in during the last 4 weeks (and 24 weeks).
//
// Each account remembers the day of its latest activity; every day keeps a
// count of the accounts whose latest activity fell on it. When an account is
// active on a later day, one transaction moves it from its old day to the new
// one, so the sum of the day counts over a window is exactly the number of
// distinct accounts active within it: one Query, no scan, no double counting.
import { z } from 'zod';
import * as keys from './keys';
import { getItem, queryAll, transact, type TransactItem } from './table';

export const MONTH_DAYS = 28;
export const HALF_YEAR_DAYS = 168;
/** Kept a little longer than the widest window read. */
const RETENTION_SECONDS = (HALF_YEAR_DAYS + 30) * 24 * 60 * 60;

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const DAY_MS = 24 * 60 * 60 * 1000;
export const WEEK_MS = 7 * DAY_MS;
/** The week of a moment, named by its Monday (YYYY-MM-DD, UTC): Mastodon's weeks begin on Monday. */
export const weekOf = (at: Date): string => {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return dayOf(new Date(midnight - sinceMonday * DAY_MS));
};
const daysBefore = (at: Date, days: number) => dayOf(new Date(at.getTime() - days * 24 * 60 * 60 * 1000));
const expiry = (at: Date) => Math.floor(at.getTime() / 1000) + RETENTION_SECONDS;

const latestItem = z.object({ day: z.string() });
const weekItem = z.object({ SK: z.string(), logins: z.number().int().default(0) });
/** Weekly login counts are kept as long as the 12 weeks GET /api/v1/instance/activity shows, and a little more. */
const WEEK_RETENTION_SECONDS = 16 * 7 * 24 * 60 * 60;
const dayItem = z.object({ SK: z.string(), count: z.number().int().default(0) });

/** Records that an account was active at `at` (a sign-in). Idempotent within a day. */
export async function recordActivity(accountId: string, at: Date = new Date()): Promise<void> {
  const day = dayOf(at);
  const previous = await getItem(keys.accountActivity(accountId), latestItem, true);
  if (previous && previous.day >= day) return;
  const bump = (d: string, by: number): TransactItem => ({
    Update: {
      Key: keys.activityDay(d),
      UpdateExpression: 'ADD #count :by SET expiresAt = if_not_exists(expiresAt, :exp)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':by': by, ':exp': expiry(new Date(`${d}T00:00:00Z`)) },
    },
  });
  // The condition makes concurrent recorders agree: only one moves the account.
  await transact([
    {
      Put: {
        Item: { ...keys.accountActivity(accountId), accountId, day, expiresAt: expiry(at) },
        ...(previous
          ? { ConditionExpression: '#day = :old', ExpressionAttributeNames: { '#day': 'day' }, ExpressionAttributeValues: { ':old': previous.day } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
    bump(day, 1),
    ...(previous ? [bump(previous.day, -1)] : []),
    // The account's first activity of the week: it counts once among the week's logins, however often it signs in.
    ...(!previous || weekOf(new Date(`${previous.day}T00:00:00Z`)) < weekOf(at) ? [countWeeklyLogin(weekOf(at))] : []),
  ]);
}

const countWeeklyLogin = (week: string): TransactItem => ({
  Update: {
    Key: keys.activityWeek(week),
    UpdateExpression: 'ADD logins :one SET expiresAt = if_not_exists(expiresAt, :exp)',
    ExpressionAttributeValues: { ':one': 1, ':exp': Math.floor(Date.parse(`${week}T00:00:00Z`) / 1000) + WEEK_RETENTION_SECONDS },
  },
});

/** Distinct accounts active in each of some weeks (each named by its Monday): one Query. */
export async function weeklyLogins(weeks: string[]): Promise<Map<string, number>> {
  const sorted = [...weeks].sort();
  const counted = sorted.length === 0 ? [] : await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.activityPartition(), ':from': keys.activityWeek(sorted[0]!).SK, ':to': keys.activityWeek(sorted[sorted.length - 1]!).SK },
    },
    weekItem,
  );
  const bySk = new Map(counted.map((w) => [w.SK, Math.max(0, w.logins)]));
  return new Map(weeks.map((w) => [w, bySk.get(keys.activityWeek(w).SK) ?? 0]));
}

/** Distinct accounts active during the last `days` days, today included. */
export async function activeUsers(days: number, now: Date = new Date()): Promise<number> {
  const counted = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':p': keys.activityPartition(),
        ':from': keys.activityDay(daysBefore(now, days - 1)).SK,
        ':to': keys.activityDay(dayOf(now)).SK,
      },
    },
    dayItem,
  );
  return Math.max(0, counted.reduce((sum, d) => sum + d.count, 0));
}
