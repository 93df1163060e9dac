// Trend counters of statuses and links, kept at write time and read without scans
// (the scoring itself, and why it is shaped so, is lib/trends/index.ts's):
// - `TRENDSTATUSDAY#<day>` / `<status>`: a status's score on a UTC day, in units
//   decayed to that day's midnight, with its distinct accounts and its author; the
//   day partition is the day's candidates, so ranking reads two partitions.
// - `TRENDACT#<status>#<account>`: the account's interaction was counted (any kind,
//   once), written in the same transaction as the score it adds.
// - `TRENDLINKDAY#<day>` / `<url hash>`: a link's uses, distinct accounts and score
//   on a UTC day (also the 7 days of its `history`).
// - `TRENDLINKUSE#<url hash>#<status>`: that status's share was counted (once).
// - `TRENDLINKACCT#<day>#<url hash>#<account>`: the account shared it that day.
// - `TRENDCANDIDATES#<kind>#<day>`: how many candidates a day partition holds; a
//   new candidate is written only while it is under the cap, in one transaction
//   with the counter, so a day partition (and a trends read) stays bounded.
// - `TRENDS_HIDDEN` / `<kind>#<value>`: what the operator keeps out of trends.
// - `TRENDLINKSTATUSES#<url hash>` / `<status>`: the public statuses sharing a link,
//   newest first: the link's timeline (GET /api/v1/timelines/link).
// URLs are keyed by their SHA-256 (a URL may be longer than a sort key may be).
import { z } from 'zod';
import { sha256 } from '../crypto';
import { padId } from '../ids';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, deleteItem, putItem, queryAll, transact, type Item, type TransactItem } from './table';

const DAY_SECONDS = 24 * 60 * 60;

/** `YYYY-MM-DD` of a UTC day. */
export const trendDayOf = (at: Date) => at.toISOString().slice(0, 10);
/** Milliseconds since the epoch of a UTC day's midnight. */
export const midnightOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
/** The key of a link: its URL's SHA-256. */
export const linkHash = (url: string) => sha256(url);

/** Status day counters are read for two days (today's and yesterday's ranking), then expire. */
const STATUS_DAY_RETENTION = 3 * DAY_SECONDS;
/** Link day counters are also a link's week of `history`. */
const LINK_DAY_RETENTION = 9 * DAY_SECONDS;
const expiryOf = (day: string, retention: number) => Math.floor(midnightOf(day) / 1000) + retention;

export const statusTrendDayItem = z.object({
  statusId: z.string(),
  accountId: z.string(),
  /** The author's server (null for ours): a viewer's domain blocks apply before the page is cut. */
  domain: z.string().nullable().default(null),
  score: z.number().default(0),
  accounts: z.number().int().default(0),
});
export type StatusTrendDay = z.infer<typeof statusTrendDayItem>;

export const linkTrendDayItem = z.object({
  SK: z.string(),
  url: z.string(),
  score: z.number().default(0),
  uses: z.number().int().default(0),
  accounts: z.number().int().default(0),
});
export type LinkTrendDay = z.infer<typeof linkTrendDayItem>;

/** What counting an interaction or a share did. */
export type CountOutcome = 'counted' | 'already-counted' | 'day-full';

type Bump = {
  kind: 'status' | 'link';
  day: string;
  dayKey: Key;
  /** Written once with the bump: the bump happens only if none of them exists yet. */
  markers: Key[];
  add: { score: number; accounts: number; uses: number };
  /** The candidate's attributes, written when it enters the day partition. */
  attributes: Item;
  retention: number;
  cap: number;
};

/**
 * Adds to a candidate's day counter, in one transaction with its once-only markers. A
 * candidate not in the day partition yet enters it in a second transaction that also
 * bumps the day's candidate counter under the cap. A retried call finds its marker and
 * adds nothing; a crash between the two leaves nothing half-written.
 */
async function bump(b: Bump): Promise<CountOutcome> {
  const expiresAt = expiryOf(b.day, b.retention);
  const markerPuts: TransactItem[] = b.markers.map((key) => ({ Put: { Item: { ...key, expiresAt }, ConditionExpression: 'attribute_not_exists(PK)' } }));
  const markerFailed = (failed: number[]) => failed.some((i) => i < markerPuts.length);
  // A concurrent first count may create the candidate between the two transactions: then it is counted into.
  for (let attempt = 0; attempt < 3; attempt++) {
    const into = await transact([
      ...markerPuts,
      {
        Update: {
          Key: b.dayKey,
          UpdateExpression: 'ADD score :score, accounts :accounts, uses :uses',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':score': b.add.score, ':accounts': b.add.accounts, ':uses': b.add.uses },
        },
      },
    ]);
    if (into.ok) return 'counted';
    if (markerFailed(into.failed)) return 'already-counted';
    const counterIndex = markerPuts.length + 1;
    const entered = await transact([
      ...markerPuts,
      { Put: { Item: { ...b.dayKey, ...b.attributes, ...b.add, expiresAt }, ConditionExpression: 'attribute_not_exists(PK)' } },
      {
        Update: {
          Key: keys.trendDayCandidates(b.kind, b.day),
          UpdateExpression: 'ADD candidates :one SET expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(candidates) OR candidates < :cap',
          ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt, ':cap': b.cap },
        },
      },
    ]);
    if (entered.ok) return 'counted';
    if (markerFailed(entered.failed)) return 'already-counted';
    // The candidate appeared meanwhile (its Put failed): count into it on the next round, whatever the cap says.
    if (entered.failed.includes(markerPuts.length)) continue;
    if (entered.failed.includes(counterIndex)) return 'day-full';
  }
  throw new Error(`trends: the ${b.kind} candidate ${b.dayKey.SK} of ${b.day} kept changing under its count`);
}

/**
 * Counts `actorId`'s interaction with a status on the day of `at`, once per (status, account)
 * whatever its kind: `weight` is the score it adds (already in the day's decayed units).
 */
export function countStatusInteraction(
  status: { id: string; accountId: string; domain: string | null },
  actorId: string,
  at: Date,
  weight: number,
  cap: number,
): Promise<CountOutcome> {
  const day = trendDayOf(at);
  return bump({
    kind: 'status',
    day,
    dayKey: keys.trendStatusDay(day, status.id),
    markers: [keys.trendStatusActor(status.id, actorId)],
    add: { score: weight, accounts: 1, uses: 1 },
    attributes: { statusId: status.id, accountId: status.accountId, domain: status.domain },
    retention: STATUS_DAY_RETENTION,
    cap,
  });
}

/**
 * Counts a status sharing a link on the day of `at`, once per (link, status). The account's
 * first share of the day adds `weight` and one account; later ones add a use only. The account
 * marker is written first: a crash right after it loses that one account, never doubles it.
 */
export async function countLinkShareOn(
  url: string,
  share: { statusId: string; accountId: string },
  at: Date,
  weight: number,
  cap: number,
): Promise<CountOutcome> {
  const day = trendDayOf(at);
  const hash = linkHash(url);
  const shareKey = keys.trendLinkShare(hash, share.statusId);
  const expiresAt = expiryOf(day, LINK_DAY_RETENTION);
  const firstOfAccount = await putItem({ ...keys.trendLinkAccountDay(day, hash, share.accountId), expiresAt }, { ifAbsent: true });
  return bump({
    kind: 'link',
    day,
    dayKey: keys.trendLinkDay(day, hash),
    markers: [shareKey],
    add: { score: firstOfAccount ? weight : 0, accounts: firstOfAccount ? 1 : 0, uses: 1 },
    attributes: { url },
    retention: LINK_DAY_RETENTION,
    cap,
  });
}

/** Every status candidate of each day (one Query per day partition). */
export async function statusTrendDays(days: string[]): Promise<Map<string, StatusTrendDay[]>> {
  const read = await Promise.all(
    days.map(async (day) => {
      const items = await queryAll(
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.trendStatusDayPartition(day) } },
        statusTrendDayItem,
      );
      return [day, items] as const;
    }),
  );
  return new Map(read);
}

/** Every link candidate of each day (one Query per day partition). */
export async function linkTrendDays(days: string[]): Promise<Map<string, LinkTrendDay[]>> {
  const read = await Promise.all(
    days.map(async (day) => {
      const items = await queryAll(
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.trendLinkDayPartition(day) } },
        linkTrendDayItem,
      );
      return [day, items] as const;
    }),
  );
  return new Map(read);
}

/** The day counters of the given links (by hash) over the given days, keyed by day then hash (one batch read). */
export async function linkHistories(hashes: string[], days: string[]): Promise<Map<string, Map<string, LinkTrendDay>>> {
  const found = await batchGet(hashes.flatMap((hash) => days.map((day) => keys.trendLinkDay(day, hash))), linkTrendDayItem);
  const out = new Map<string, Map<string, LinkTrendDay>>(days.map((day) => [day, new Map()]));
  for (const day of days) {
    for (const hash of hashes) {
      const key = keys.trendLinkDay(day, hash);
      const item = found.get(`${key.PK}|${key.SK}`);
      if (item) out.get(day)?.set(hash, item);
    }
  }
  return out;
}

// ---- the link's timeline ----

const linkStatusItem = z.object({ statusId: z.string() });

/**
 * Lists a status under a link it shares. Written for every counted share (the day's cap
 * limits candidates, not a link's statuses); a retry writes the same item again. Entries
 * are never removed: a deleted status's entry stays and drops out on read, when
 * statusesByIds no longer finds it, as does one whose status now shows another card.
 */
export const addLinkStatus = (url: string, statusId: string): Promise<boolean> =>
  putItem({ ...keys.trendLinkStatus(linkHash(url), statusId), statusId });

/** The ids of a page of the statuses listed under a link, newest first (one Query). */
export async function linkStatusIds(url: string, page: Page): Promise<string[]> {
  const target = { partitionAttr: 'PK', sortAttr: 'SK', partition: keys.trendLinkStatusesPartition(linkHash(url)) } as const;
  return (await queryIdRange(target, page, linkStatusItem)).map((item) => item.statusId);
}

const trendStateItem = z.object({ accounts: z.number().int().default(0) });

/** A link's distinct sharing accounts over `days`, and whether the operator hid it (one batch read). */
export async function linkTrendState(url: string, days: string[]): Promise<{ accounts: number; hidden: boolean }> {
  const hash = linkHash(url);
  const dayKeys = days.map((day) => keys.trendLinkDay(day, hash));
  const hiddenKey = keys.trendHidden('link', hash);
  const found = await batchGet([...dayKeys, hiddenKey], trendStateItem);
  const accounts = dayKeys.reduce((sum, key) => sum + (found.get(`${key.PK}|${key.SK}`)?.accounts ?? 0), 0);
  return { accounts, hidden: found.has(`${hiddenKey.PK}|${hiddenKey.SK}`) };
}

// ---- the operator's hidden items ----

export type HiddenTrendKind = 'status' | 'link' | 'tag';
/** Hidden items by kind: status ids, link URL hashes, tags. */
export type HiddenTrends = Record<HiddenTrendKind, Set<string>>;

const hiddenItem = z.object({ SK: z.string(), label: z.string().default('') });
const hiddenValue = (kind: HiddenTrendKind, value: string) => (kind === 'status' ? padId(value) : kind === 'link' ? linkHash(value) : value);

/** Keeps an item out of trends; `value` is a status id, a URL or a normalized tag. Answers false when it was hidden already. */
export const hideTrend = (kind: HiddenTrendKind, value: string): Promise<boolean> =>
  putItem({ ...keys.trendHidden(kind, hiddenValue(kind, value)), label: value, hiddenAt: new Date().toISOString() }, { ifAbsent: true });

/** Lets an item trend again; answers false when it was not hidden. */
export async function unhideTrend(kind: HiddenTrendKind, value: string): Promise<boolean> {
  const removed = await deleteItem(keys.trendHidden(kind, hiddenValue(kind, value)), hiddenItem, { ConditionExpression: 'attribute_exists(PK)' });
  return removed !== undefined;
}

/** One hidden item: its kind, its key value (status id, URL hash, tag) and what the operator named (the id, URL or tag). */
export type HiddenTrend = { kind: HiddenTrendKind; value: string; label: string };

const hiddenKinds: readonly string[] = ['status', 'link', 'tag'] satisfies HiddenTrendKind[];
const isHiddenKind = (kind: string): kind is HiddenTrendKind => hiddenKinds.includes(kind);

/** Every hidden item (one Query: the operator hides few). */
export async function hiddenTrendList(): Promise<HiddenTrend[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.trendsHiddenPartition() } },
    hiddenItem,
  );
  return items.flatMap((item) => {
    const at = item.SK.indexOf('#');
    const kind = item.SK.slice(0, at);
    const raw = item.SK.slice(at + 1);
    if (!isHiddenKind(kind)) return [];
    // Status ids are padded in the key, unpadded everywhere else.
    return [{ kind, value: kind === 'status' ? BigInt(raw).toString() : raw, label: item.label }];
  });
}

/** Everything hidden, by kind (one Query). */
export async function hiddenTrends(): Promise<HiddenTrends> {
  const out: HiddenTrends = { status: new Set(), link: new Set(), tag: new Set() };
  for (const item of await hiddenTrendList()) out[item.kind].add(item.value);
  return out;
}
