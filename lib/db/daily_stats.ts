// The instance's counters of each UTC day, for the dashboard's measures (POST /api/v1/admin/measures): one item
// per day (`DAILY_STATS` / `<YYYY-MM-DD>`), each counter moved by one atomic ADD after the write it counts has
// committed (as lib/db/stats.ts moves the instance totals: a cancelled write counts nothing, a committed one
// once, the one way to miss a count is the function stopping between the two). A period is one Query.
import { z } from 'zod';
import { log } from '../log';
import * as keys from './keys';
import { queryAll, updateItem } from './table';

/** What is counted per day: local sign-ups, local interactions (favourites, reblogs, replies), reports filed and resolved. */
export const DAILY_COUNTERS = ['newUsers', 'interactions', 'openedReports', 'resolvedReports'] as const;
export type DailyCounter = (typeof DAILY_COUNTERS)[number];

/** Days are kept a little over a year: the dashboard's periods are weeks and months. */
const RETENTION_SECONDS = 400 * 24 * 60 * 60;

const dayItem = z.object({
  SK: z.string(),
  newUsers: z.number().int().default(0),
  interactions: z.number().int().default(0),
  openedReports: z.number().int().default(0),
  resolvedReports: z.number().int().default(0),
});
export type DailyCounts = Record<DailyCounter, number>;

export const utcDayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Adds to a day's counter; a failure is logged, never thrown (the write it counts stands). */
export const countDaily = (counter: DailyCounter, delta = 1, at: Date = new Date()): Promise<void> => addToDay(counter, delta, at);

/**
 * What the dashboard counts per day under a name: `server`, the statuses received from a remote server (by the
 * status's time); `source`, the sign-ups made through an application ('web' without one); `account`, the accounts
 * of a remote server first stored here; `report`, the reports filed here about a remote server's accounts.
 */
export type NamedCount = 'server' | 'source' | 'account' | 'report';

export const countNamed = (kind: NamedCount, name: string, at: Date = new Date()): Promise<void> => addToDay(`${kind}:${name}`, 1, at);

/** The day's statuses from a server (Mastodon's servers dimension: the most active remote servers). */
export const countServerStatus = (domain: string, at: Date): Promise<void> => countNamed('server', domain.toLowerCase(), at);

async function addToDay(counter: string, delta: number, at: Date): Promise<void> {
  const day = utcDayOf(at);
  try {
    await updateItem(
      {
        Key: keys.dailyStats(day),
        UpdateExpression: 'ADD #c :d SET expiresAt = if_not_exists(expiresAt, :exp)',
        ExpressionAttributeNames: { '#c': counter },
        ExpressionAttributeValues: { ':d': delta, ':exp': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + RETENTION_SECONDS },
      },
      z.unknown(),
    );
  } catch (err) {
    log.error('daily counter not moved', { counter, delta, err });
  }
}

/** The counters of each day from `from` to `to` (inclusive, YYYY-MM-DD), zeros where nothing was counted: one Query. */
export async function dailyCounts(from: string, to: string): Promise<Map<string, DailyCounts>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.dailyStatsPartition(), ':from': from, ':to': to },
    },
    dayItem,
  );
  return new Map(items.map(({ SK, ...counts }) => [SK, counts]));
}

/** The counts of one kind over the days from `from` to `to`, summed by name (one Query). */
export async function namedCounts(kind: NamedCount, from: string, to: string): Promise<Map<string, number>> {
  const prefix = `${kind}:`;
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.dailyStatsPartition(), ':from': from, ':to': to },
    },
    z.record(z.unknown()),
  );
  const out = new Map<string, number>();
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (name.startsWith(prefix) && typeof value === 'number') out.set(name.slice(prefix.length), (out.get(name.slice(prefix.length)) ?? 0) + value);
    }
  }
  return out;
}

/** One name's count on each day from `from` to `to` (one Query reading that attribute only). */
export async function namedDayCounts(kind: NamedCount, name: string, from: string, to: string): Promise<Map<string, number>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': keys.dailyStatsPartition(), ':from': from, ':to': to },
      ProjectionExpression: 'SK, #n',
      ExpressionAttributeNames: { '#n': `${kind}:${name}` },
    },
    z.record(z.unknown()),
  );
  const out = new Map<string, number>();
  for (const item of items) {
    const value = item[`${kind}:${name}`];
    if (typeof value === 'number') out.set(String(item.SK), value);
  }
  return out;
}
