// Active users, as Mastodon reports them (instance usage, NodeInfo): the number
// of distinct accounts that signed in during the last 4 weeks (and 24 weeks).
//
// Each account remembers the day of its latest activity; every day keeps a
// count of the accounts whose latest activity fell on it. When an account is
// active on a later day, one transaction moves it from its old day to the new
// one, so the sum of the day counts over a window is exactly the number of
// distinct accounts active within it: one Query, no scan, no double counting.
import { z } from 'zod';
import { timeOfId } from '../ids';
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

const latestItem = z.object({ day: z.string(), locale: z.string().optional() });
const LOCALE_PREFIX = 'locale:';
const weekItem = z.object({ SK: z.string(), logins: z.number().int().default(0) });
/** Weekly login counts are kept as long as the 12 weeks GET /api/v1/instance/activity shows, and a little more. */
const WEEK_RETENTION_SECONDS = 16 * 7 * 24 * 60 * 60;
const dayItem = z.object({ SK: z.string(), count: z.number().int().default(0) });

/**
 * Records that an account was active at `at` (a sign-in). Idempotent within a day. The transaction runs once per
 * account and day, so the new day's item also counts the day's distinct active accounts (`active`: the dashboard's
 * active_users), and the account's sign-up cohorts move it to its new latest period (the retention cohorts).
 */
export async function recordActivity(accountId: string, at: Date = new Date(), locale: string | null = null): Promise<void> {
  const day = dayOf(at);
  const previous = await getItem(keys.accountActivity(accountId), latestItem, true);
  if (previous && previous.day >= day) return;
  // The latest day's count by locale (the dashboard's languages: users whose latest sign-in falls in the period),
  // moved with the account; a locale is taken off the old day only if it was counted there.
  const bump = (d: string, by: number, lang: string | null | undefined): TransactItem => ({
    Update: {
      Key: keys.activityDay(d),
      UpdateExpression: `ADD #count :by${by > 0 ? ', active :by' : ''}${lang ? ', #lang :by' : ''} SET expiresAt = if_not_exists(expiresAt, :exp)`,
      ExpressionAttributeNames: { '#count': 'count', ...(lang ? { '#lang': `${LOCALE_PREFIX}${lang}` } : {}) },
      ExpressionAttributeValues: { ':by': by, ':exp': expiry(new Date(`${d}T00:00:00Z`)) },
    },
  });
  // The condition makes concurrent recorders agree: only one moves the account.
  await transact([
    {
      Put: {
        Item: { ...keys.accountActivity(accountId), accountId, day, ...(locale ? { locale } : {}), expiresAt: expiry(at) },
        ...(previous
          ? { ConditionExpression: '#day = :old', ExpressionAttributeNames: { '#day': 'day' }, ExpressionAttributeValues: { ':old': previous.day } }
          : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
    bump(day, 1, locale),
    ...(previous ? [bump(previous.day, -1, previous.locale)] : []),
    ...cohortMoves(accountId, previous?.day, day),
    // The account's first activity of the week: it counts once among the week's logins, however often it signs in.
    ...(!previous || weekOf(new Date(`${previous.day}T00:00:00Z`)) < weekOf(at) ? [countWeeklyLogin(weekOf(at))] : []),
  ]);
}

/**
 * Retention cohorts (Mastodon's Admin::Metrics::Retention): of the accounts that signed up in a period (a day, a
 * month), how many were last active in each later period. An account's sign-up time is its id's (local accounts
 * are numbered when they register), so no read: its cohort items hold one count per latest period, moved from the
 * old period to the new one as its latest activity moves.
 */
/** A cohort item outlives its latest move by more than a year. */
const COHORT_RETENTION_SECONDS = 400 * 24 * 60 * 60;

function cohortMoves(accountId: string, from: string | undefined, to: string): TransactItem[] {
  const joined = dayOf(timeOfId(accountId));
  const month = (d: string) => d.slice(0, 7);
  const move = (frequency: 'day' | 'month', cohort: string, old: string | undefined, now: string): TransactItem | undefined => {
    if (old === now) return undefined;
    return {
      Update: {
        Key: keys.retentionCohort(frequency, cohort),
        UpdateExpression: `ADD #now :one${old !== undefined ? ', #old :minus' : ''} SET expiresAt = :exp`,
        ExpressionAttributeNames: { '#now': `p${now}`, ...(old !== undefined ? { '#old': `p${old}` } : {}) },
        ExpressionAttributeValues: { ':one': 1, ...(old !== undefined ? { ':minus': -1 } : {}), ':exp': Math.floor(Date.parse(`${to}T00:00:00Z`) / 1000) + COHORT_RETENTION_SECONDS },
      },
    };
  };
  return [move('day', joined, from, to), move('month', month(joined), from && month(from), month(to))].filter((m): m is TransactItem => m !== undefined);
}

const cohortItem = z.record(z.unknown());


/**
 * Of a cohort's accounts, how many were last active in each period (`YYYY-MM-DD` days, `YYYY-MM` months): one
 * Query over the cohorts from `from` to `to`.
 */
export async function cohortLatestPeriods(frequency: 'day' | 'month', from: string, to: string): Promise<Map<string, Map<string, number>>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.retentionPartition(frequency), ':from': from, ':to': to },
    },
    cohortItem,
  );
  const out = new Map<string, Map<string, number>>();
  for (const item of items) {
    const periods = new Map<string, number>();
    for (const [name, value] of Object.entries(item)) if (name.startsWith('p') && typeof value === 'number') periods.set(name.slice(1), Math.max(0, value));
    out.set(String(item.SK), periods);
  }
  return out;
}

const activeDayItem = z.object({ SK: z.string(), count: z.number().int().default(0), active: z.number().int().default(0) });

/**
 * Each day from `from` to `to`: the distinct accounts active that day (`active`), and those whose latest activity
 * it still is (`latest`: summed over a period that ends today, the distinct accounts active in it). One Query.
 */
export async function activityDays(from: string, to: string): Promise<Map<string, { active: number; latest: number }>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.activityPartition(), ':from': keys.activityDay(from).SK, ':to': keys.activityDay(to).SK },
    },
    activeDayItem,
  );
  return new Map(items.map((d) => [d.SK.slice('DAY#'.length), { active: Math.max(0, d.active), latest: Math.max(0, d.count) }]));
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

/**
 * The accounts whose latest sign-in falls between `from` and `to`, by their locale (Mastodon's languages
 * dimension: users by locale whose current sign-in is in the period). One Query.
 */
export async function latestSignInLocales(from: string, to: string): Promise<Map<string, number>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.activityPartition(), ':from': keys.activityDay(from).SK, ':to': keys.activityDay(to).SK },
    },
    z.record(z.unknown()),
  );
  const out = new Map<string, number>();
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (name.startsWith(LOCALE_PREFIX) && typeof value === 'number') out.set(name.slice(LOCALE_PREFIX.length), (out.get(name.slice(LOCALE_PREFIX.length)) ?? 0) + value);
    }
  }
  return out;
}
