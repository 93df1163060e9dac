// The moderators' dashboard figures (https://docs.joinmastodon.org/methods/admin/measures/, /dimensions/,
// /retention/): Mastodon's measures, dimensions and sign-up cohorts, computed from counters the writes already
// keep, never from a scan. What each key rests on, and how exact it is:
// - new_users, interactions, opened_reports, resolved_reports: the day counters of lib/db/daily_stats.ts, moved
//   by each sign-up, local favourite, reblog or reply to another account, report filed (here or by Flag) and
//   first resolution: exact (from the day they began counting).
// - active_users: per day, the distinct accounts that signed in that day (exact); its total, the distinct
//   accounts of the period, is exact for a period that ends today (lib/db/activity.ts keeps each account's
//   latest day), and for an earlier one the sum of its days (an upper bound), as is previous_total.
// - tag_uses, tag_accounts, tag_servers: the tag's day counters of public statuses (lib/db/tags.ts), kept 14
//   days: exact within them, 0 before (tag_servers is counted from this change on).
// - instance_statuses, instance_accounts, instance_reports: a remote server's statuses received, accounts first
//   stored and reports filed about its accounts, per day (lib/db/daily_stats.ts named counts): the days exact
//   from this change on; the total is the period's, where Mastodon's is all-time.
// - instance_media_attachments, instance_follows, instance_followers: nothing counts them per server and day
//   here; they answer a total of 0 and no data.
// - retention: lib/db/activity.ts's cohorts (an account's latest sign-in period, by its sign-up period), as
//   Mastodon's (users of the cohort whose latest sign-in is in or after the period): exact from their start.
// Dimensions: software_versions is exact; servers (statuses received from each remote server, by their time)
// and sources (sign-ups by the application they came through, 'web' without one) are exact from this change
// on, as is languages (accounts whose latest sign-in falls in the period, by locale: Mastodon's definition);
// the others have nothing counting them and answer no data.
import { activityDays, cohortLatestPeriods, latestSignInLocales } from '../db/activity';
import { dailyCounts, namedCounts, namedDayCounts, utcDayOf, type DailyCounter } from '../db/daily_stats';
import { tagById, tagHistories } from '../db/tags';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';
import { MASTODON_COMPATIBILITY, SOFTWARE } from '../config';

export const MEASURE_KEYS = [
  'active_users', 'new_users', 'interactions', 'opened_reports', 'resolved_reports',
  'tag_accounts', 'tag_uses', 'tag_servers',
  'instance_accounts', 'instance_media_attachments', 'instance_reports', 'instance_statuses', 'instance_follows', 'instance_followers',
] as const;
export type MeasureKey = (typeof MEASURE_KEYS)[number];

export const DIMENSION_KEYS = [
  'languages', 'sources', 'servers', 'space_usage', 'software_versions', 'tag_servers', 'tag_languages', 'instance_accounts', 'instance_languages',
] as const;
export type DimensionKey = (typeof DIMENSION_KEYS)[number];

/** Measures about one remote server: Mastodon shows them to those who manage federation. */
export const isInstanceKey = (key: string) => key.startsWith('instance_');

/** The longest period asked: the day counters are kept a little longer. */
export const MAX_PERIOD_DAYS = 400;
const DAY_MS = 24 * 60 * 60 * 1000;

export type Period = { start: string; end: string };

/** The UTC days of a period, first to last. */
export const daysOf = (p: Period): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${p.start}T00:00:00Z`); t <= Date.parse(`${p.end}T00:00:00Z`); t += DAY_MS) out.push(utcDayOf(new Date(t)));
  return out;
};

/** The period of the same length just before. */
const previousOf = (p: Period): Period => {
  const length = daysOf(p).length;
  const start = Date.parse(`${p.start}T00:00:00Z`);
  return { start: utcDayOf(new Date(start - length * DAY_MS)), end: utcDayOf(new Date(start - DAY_MS)) };
};

const midnightIso = (day: string) => `${day}T00:00:00Z`;

export type MeasureParams = { id?: string; domain?: string };
export type Measure = {
  key: MeasureKey;
  unit: string | null;
  total: string;
  previous_total?: string;
  human_value?: string;
  data: { date: string; value: string }[];
};

const DAILY: Partial<Record<MeasureKey, DailyCounter>> = {
  new_users: 'newUsers',
  interactions: 'interactions',
  opened_reports: 'openedReports',
  resolved_reports: 'resolvedReports',
};

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

async function dailyMeasure(key: MeasureKey, counter: DailyCounter, period: Period): Promise<Measure> {
  const previous = previousOf(period);
  const counts = await dailyCounts(previous.start, period.end);
  const value = (day: string) => counts.get(day)?.[counter] ?? 0;
  const days = daysOf(period);
  return {
    key,
    unit: null,
    total: String(sum(days.map(value))),
    previous_total: String(sum(daysOf(previous).map(value))),
    data: days.map((day) => ({ date: midnightIso(day), value: String(value(day)) })),
  };
}

async function activeUsers(period: Period, today: string): Promise<Measure> {
  const previous = previousOf(period);
  const last = period.end > today ? period.end : today;
  const byDay = await activityDays(previous.start, last);
  const active = (day: string) => byDay.get(day)?.active ?? 0;
  const days = daysOf(period);
  // Over a period that ends today, the accounts whose latest day falls in it are exactly its distinct accounts.
  const total = period.end >= today ? sum(daysOf({ start: period.start, end: last }).map((d) => byDay.get(d)?.latest ?? 0)) : sum(days.map(active));
  return {
    key: 'active_users',
    unit: null,
    total: String(total),
    previous_total: String(sum(daysOf(previous).map(active))),
    data: days.map((day) => ({ date: midnightIso(day), value: String(active(day)) })),
  };
}

async function tagMeasure(key: 'tag_uses' | 'tag_accounts' | 'tag_servers', id: string, period: Period): Promise<Measure> {
  const tag = await tagById(id);
  if (!tag) throw notFound();
  const previous = previousOf(period);
  const days = daysOf(period);
  const byDay = await tagHistories([tag.tag], [...daysOf(previous), ...days]);
  const field = key === 'tag_uses' ? 'uses' : key === 'tag_accounts' ? 'accounts' : 'servers';
  const value = (day: string) => byDay.get(day)?.get(tag.tag)?.[field] ?? 0;
  return {
    key,
    unit: null,
    total: String(sum(days.map(value))),
    previous_total: String(sum(daysOf(previous).map(value))),
    data: days.map((day) => ({ date: midnightIso(day), value: String(value(day)) })),
  };
}

/** A measure nothing counts here: no figure rather than an invented one. */
const uncounted = (key: MeasureKey): Measure => {
  if (key === 'instance_media_attachments') return { key, unit: 'bytes', total: '0', human_value: '0 Bytes', data: [] };
  // Mastodon's instance measures are all-time totals: no previous_total.
  if (isInstanceKey(key)) return { key, unit: null, total: '0', data: [] };
  return { key, unit: null, total: '0', previous_total: '0', data: [] };
};

const needParam = (key: string, name: 'id' | 'domain', params: MeasureParams | undefined): string => {
  const value = params?.[name];
  if (value === undefined || value.trim() === '') throw unprocessable(`Validation failed: ${key}[${name}] can't be blank`);
  return value.trim();
};

/** One measure over `period`; `params` are the key's own (a tag's id, a server's domain). */
export async function measure(key: MeasureKey, period: Period, params: MeasureParams | undefined, now: Date = new Date()): Promise<Measure> {
  const counter = DAILY[key];
  if (counter) return dailyMeasure(key, counter, period);
  switch (key) {
    case 'active_users':
      return activeUsers(period, utcDayOf(now));
    case 'tag_uses':
    case 'tag_accounts':
    case 'tag_servers': {
      const id = needParam(key, 'id', params);
      if (!isId(id)) throw notFound();
      return tagMeasure(key, id, period);
    }
    case 'instance_statuses':
    case 'instance_accounts':
    case 'instance_reports':
      return instanceMeasure(key, needParam(key, 'domain', params).toLowerCase(), period);
    default:
      needParam(key, 'domain', params);
      return uncounted(key);
  }
}

const INSTANCE_COUNTS = { instance_statuses: 'server', instance_accounts: 'account', instance_reports: 'report' } as const;

/**
 * A remote server's statuses received, accounts first stored, reports filed about its accounts, per day. Mastodon's
 * total is all-time; the day counters give the period's (and nothing before they began), so total is the period's.
 */
async function instanceMeasure(key: keyof typeof INSTANCE_COUNTS, domain: string, period: Period): Promise<Measure> {
  const byDay = await namedDayCounts(INSTANCE_COUNTS[key], domain, period.start, period.end);
  const days = daysOf(period);
  const value = (day: string) => byDay.get(day) ?? 0;
  return { key, unit: null, total: String(sum(days.map(value))), data: days.map((day) => ({ date: midnightIso(day), value: String(value(day)) })) };
}

/** A locale's English name (Mastodon's standard_locale_name), from the runtime's CLDR data. */
const languageName = (locale: string): string => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
};

export type Dimension = { key: DimensionKey; data: { key: string; human_key: string; value: string; unit?: string; human_value?: string }[] };

/** One dimension over `period` (`limit`: the most rows a list answers). */
export async function dimension(key: DimensionKey, period: Period, params: MeasureParams | undefined, limit: number): Promise<Dimension> {
  switch (key) {
    case 'languages': {
      const counts = await latestSignInLocales(period.start, period.end);
      const top = [...counts].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
      return { key, data: top.map(([locale, value]) => ({ key: locale, human_key: languageName(locale), value: String(value) })) };
    }
    case 'servers':
    case 'sources': {
      const counts = await namedCounts(key === 'servers' ? 'server' : 'source', period.start, period.end);
      const top = [...counts].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
      return { key, data: top.map(([name, value]) => ({ key: name, human_key: name, value: String(value) })) };
    }
    case 'software_versions':
      return {
        key,
        data: [
          { key: SOFTWARE.name, human_key: 'Tootless', value: SOFTWARE.version, human_value: SOFTWARE.version },
          { key: 'mastodon_api', human_key: 'Mastodon API', value: MASTODON_COMPATIBILITY.version, human_value: MASTODON_COMPATIBILITY.version },
          { key: 'nodejs', human_key: 'Node.js', value: process.versions.node, human_value: process.versions.node },
        ].slice(0, limit),
      };
    case 'tag_servers':
    case 'tag_languages':
      needParam(key, 'id', params);
      return { key, data: [] };
    case 'instance_accounts':
    case 'instance_languages':
      needParam(key, 'domain', params);
      return { key, data: [] };
    default:
      return { key, data: [] };
  }
}

export type Frequency = 'day' | 'month';
export type Cohort = { period: string; frequency: Frequency; data: { date: string; rate: number; value: string }[] };

const monthOf = (day: string) => day.slice(0, 7);
const periodStart = (period: string) => (period.length === 7 ? `${period}-01` : period);

/** The periods (days, or months as YYYY-MM) a date range covers. */
function periodsOf(p: Period, frequency: Frequency): string[] {
  const days = daysOf(p);
  return frequency === 'day' ? days : [...new Set(days.map(monthOf))];
}

/**
 * Mastodon's retention cohorts: for each sign-up period of the range, for it and each later period of the range,
 * how many of its accounts were last active in or after that period (value) and their share of the cohort (rate).
 */
export async function retention(period: Period, frequency: Frequency): Promise<Cohort[]> {
  const periods = periodsOf(period, frequency);
  const first = periods[0];
  const last = periods[periods.length - 1];
  if (first === undefined || last === undefined) return [];
  const lastDay = frequency === 'day' ? last : utcDayOf(new Date(Date.UTC(Number(last.slice(0, 4)), Number(last.slice(5, 7)), 0)));
  const [cohorts, counts] = await Promise.all([cohortLatestPeriods(frequency, first, last), dailyCounts(periodStart(first), lastDay)]);
  const signUps = new Map<string, number>();
  for (const [day, c] of counts) {
    const p = frequency === 'day' ? day : monthOf(day);
    signUps.set(p, (signUps.get(p) ?? 0) + c.newUsers);
  }
  return periods.map((cohort) => {
    const latest = cohorts.get(cohort) ?? new Map<string, number>();
    // Accounts that signed up before the day counter began still have their sign-ins counted: the cohort is at least those.
    const size = Math.max(signUps.get(cohort) ?? 0, sum([...latest.values()]));
    return {
      period: `${periodStart(cohort)}T00:00:00.000Z`,
      frequency,
      data: periods
        .filter((p) => p >= cohort)
        .map((p) => {
          const value = sum([...latest].filter(([q]) => q >= p).map(([, n]) => n));
          return { date: `${periodStart(p)}T00:00:00.000Z`, rate: size === 0 ? 0 : value / size, value: String(value) };
        }),
    };
  });
}
