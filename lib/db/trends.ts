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
// - `TRENDS_HIDDEN` / `<kind>#<value>`: moderators' reviews: approved, rejected (the
//   operator's `trends hide`), a tag's usable/listable; read whole by every trends read.
// - `TREND_PUBLISHERS` / `<id>`: the hosts of trending links (Mastodon's preview card
//   providers), written when one of their links first enters a day's candidates.
// - `TRENDLINKSTATUSES#<url hash>` / `<status>`: the public statuses sharing a link,
//   newest first: the link's timeline (GET /api/v1/timelines/link).
// URLs are keyed by their SHA-256 (a URL may be longer than a sort key may be).
import { z } from 'zod';
import { sha256 } from '../crypto';
import { padId } from '../ids';
import { memo } from '../memo';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, getItem, nowIso, putItem, queryAll, transact, updateItem, type Item, type TransactItem } from './table';

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
  /** Written with the candidate's entry into the day partition (a link's publisher). */
  onEntry?: TransactItem[];
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
    const counterIndex = markerPuts.length + 1 + (b.onEntry?.length ?? 0);
    const entered = await transact([
      ...markerPuts,
      { Put: { Item: { ...b.dayKey, ...b.attributes, ...b.add, expiresAt }, ConditionExpression: 'attribute_not_exists(PK)' } },
      ...(b.onEntry ?? []),
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
    onEntry: publisherOnEntry(url, at),
  });
}

const publisherOnEntry = (url: string, at: Date): TransactItem[] => {
  const domain = publisherDomainOf(url);
  return domain ? [publisherSeen(domain, at.toISOString())] : [];
};

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

const trendStateItem = z.object({ accounts: z.number().int().default(0), trendable: z.boolean().optional(), hiddenAt: z.string().optional() });

/**
 * A link's distinct sharing accounts over `days`, and the decisions on it and on its publisher (null: none; one
 * batch read with the day counters).
 */
export async function linkTrendState(url: string, days: string[]): Promise<{ accounts: number; decision: boolean | null; publisherDecision: boolean | null }> {
  const hash = linkHash(url);
  const dayKeys = days.map((day) => keys.trendLinkDay(day, hash));
  const reviewKey = keys.trendHidden('link', hash);
  const domain = publisherDomainOf(url);
  const publisherKey = domain ? keys.trendHidden('publisher', domain) : undefined;
  const found = await batchGet([...dayKeys, reviewKey, ...(publisherKey ? [publisherKey] : [])], trendStateItem);
  const accounts = dayKeys.reduce((sum, key) => sum + (found.get(`${key.PK}|${key.SK}`)?.accounts ?? 0), 0);
  const decisionOf = (key: Key | undefined) => {
    const item = key && found.get(`${key.PK}|${key.SK}`);
    return item ? (item.trendable ?? (item.hiddenAt !== undefined ? false : null)) : null;
  };
  return { accounts, decision: decisionOf(reviewKey), publisherDecision: decisionOf(publisherKey) };
}

// ---- reviews: what moderators approved or rejected ----

/** What a review is about: a status (by id), a link (by URL hash), a tag (normalised) or a publisher (a link's host). */
export type HiddenTrendKind = 'status' | 'link' | 'tag' | 'publisher';
/** Rejected items by kind: status ids, link URL hashes, tags, publisher domains. */
export type HiddenTrends = Record<HiddenTrendKind, Set<string>>;

const reviewItem = z.object({
  SK: z.string(),
  label: z.string().default(''),
  /** The decision: true approved, false rejected, absent not reviewed (a tag made unusable, say, without a trend decision). */
  trendable: z.boolean().optional(),
  /** Set by the operator's `trends hide`, which before reviews existed was the only decision: a rejection. */
  hiddenAt: z.string().optional(),
  reviewedAt: z.string().optional(),
  /** A tag's: false keeps it out of new posts (lib/tags/moderation.ts) and out of search and trends. */
  usable: z.boolean().optional(),
  listable: z.boolean().optional(),
  /** A tag's name as moderators spelled it (Mastodon's display_name: the same tag, other letter case). */
  displayName: z.string().optional(),
});

/** One review: its kind, its key value, what it names, and the decisions taken. */
export type TrendReview = {
  kind: HiddenTrendKind;
  value: string;
  label: string;
  /** null: nobody decided; the instance's trendable_by_default applies. */
  trendable: boolean | null;
  reviewedAt: string | null;
  usable: boolean;
  listable: boolean;
  displayName: string | null;
};

const hiddenValue = (kind: HiddenTrendKind, value: string) => (kind === 'status' ? padId(value) : kind === 'link' ? linkHash(value) : value);
const hiddenKinds: readonly string[] = ['status', 'link', 'tag', 'publisher'] satisfies HiddenTrendKind[];
const isHiddenKind = (kind: string): kind is HiddenTrendKind => hiddenKinds.includes(kind);

/** A decision on a status outlives the status's two days in trends by a day, then expires. */
const STATUS_REVIEW_RETENTION = 3 * DAY_SECONDS;

function toReview(item: z.infer<typeof reviewItem>): TrendReview | undefined {
  const at = item.SK.indexOf('#');
  const kind = item.SK.slice(0, at);
  const raw = item.SK.slice(at + 1);
  if (!isHiddenKind(kind)) return undefined;
  return {
    kind,
    // Status ids are padded in the key, unpadded everywhere else.
    value: kind === 'status' ? BigInt(raw).toString() : raw,
    label: item.label,
    trendable: item.trendable ?? (item.hiddenAt !== undefined ? false : null),
    reviewedAt: item.reviewedAt ?? item.hiddenAt ?? null,
    usable: item.usable ?? true,
    listable: item.listable ?? true,
    displayName: item.displayName ?? null,
  };
}

/** Every review (one Query: moderators decide on few items, and a status's decision expires with its trend). */
export async function trendReviewList(): Promise<TrendReview[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.trendsHiddenPartition() } },
    reviewItem,
  );
  return items.flatMap((item) => toReview(item) ?? []);
}

/** Every review by kind and key value: what a trends read decides with, from the one Query. */
export type TrendReviews = Record<HiddenTrendKind, Map<string, TrendReview>>;

export async function trendReviews(): Promise<TrendReviews> {
  const out: TrendReviews = { status: new Map(), link: new Map(), tag: new Map(), publisher: new Map() };
  for (const review of await trendReviewList()) out[review.kind].set(review.value, review);
  return out;
}

const keptReviews = memo(trendReviewList);

/**
 * The tags moderators made unusable, as read at most MEMO_TTL_MS ago in this container (lib/memo.ts): what
 * posting reads, so a status costs no extra read (a change made here shows at once, elsewhere within the TTL).
 */
export async function recentUnusableTags(): Promise<Set<string>> {
  return new Set((await keptReviews.get()).filter((r) => r.kind === 'tag' && !r.usable).map((r) => r.value));
}

/** The tags moderators made unlistable (kept off search suggestions, Mastodon's listable=false), through the same memo. */
export async function recentUnlistedTags(): Promise<Set<string>> {
  return new Set((await keptReviews.get()).filter((r) => r.kind === 'tag' && !r.listable).map((r) => r.value));
}

/** One item's review (a tag's moderation, a status's decision), if any. */
export async function trendReviewOf(kind: HiddenTrendKind, keyValue: string): Promise<TrendReview | undefined> {
  const item = await getItem(keys.trendHidden(kind, kind === 'status' ? padId(keyValue) : keyValue), reviewItem);
  return item && toReview(item);
}

/** The reviews of some tags (one batch read): the admin tag list. */
export async function tagReviews(tags: string[]): Promise<Map<string, TrendReview>> {
  const found = await batchGet([...new Set(tags)].map((tag) => keys.trendHidden('tag', tag)), reviewItem);
  const out = new Map<string, TrendReview>();
  for (const item of found.values()) {
    const review = toReview(item);
    if (review) out.set(review.value, review);
  }
  return out;
}

export type ReviewChanges = { trendable?: boolean; usable?: boolean; listable?: boolean; displayName?: string };

/**
 * Records a moderator's decision on an item (`keyValue`: a status id, a link's URL hash, a tag, a domain), its
 * review time now: Mastodon's approve, reject and tag update. Answers the review as it now stands.
 */
export async function reviewTrend(kind: HiddenTrendKind, keyValue: string, label: string, changes: ReviewChanges, at: Date = new Date()): Promise<TrendReview> {
  const set: Record<string, unknown> = { label, reviewedAt: at.toISOString(), ...changes };
  if (kind === 'status') set.expiresAt = Math.floor(at.getTime() / 1000) + STATUS_REVIEW_RETENTION;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = Object.entries(set).filter(([, v]) => v !== undefined).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  // A new decision replaces the operator's old `trends hide` mark with itself.
  const item = await updateItem(
    {
      Key: keys.trendHidden(kind, kind === 'status' ? padId(keyValue) : keyValue),
      UpdateExpression: `SET ${parts.join(', ')}${changes.trendable !== undefined ? ' REMOVE hiddenAt' : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    reviewItem,
  );
  keptReviews.forget();
  const review = item && toReview(item);
  if (!review) throw new Error(`trends: the review of ${kind} ${keyValue} was not stored`);
  return review;
}

/** Keeps an item out of trends (a rejection); `value` is a status id, a URL or a normalized tag. Answers false when it was rejected already. */
export async function hideTrend(kind: HiddenTrendKind, value: string): Promise<boolean> {
  const at = nowIso();
  const stored = await updateItem(
    {
      Key: keys.trendHidden(kind, hiddenValue(kind, value)),
      UpdateExpression: 'SET label = :label, trendable = :f, hiddenAt = :at, reviewedAt = :at',
      ConditionExpression: 'NOT (trendable = :f) AND (attribute_not_exists(hiddenAt) OR trendable = :t)',
      ExpressionAttributeValues: { ':label': value, ':f': false, ':t': true, ':at': at },
    },
    reviewItem,
  );
  return stored !== undefined;
}

/** Forgets a rejection: the item follows trendable_by_default again. Answers false when it was not rejected. */
export async function unhideTrend(kind: HiddenTrendKind, value: string): Promise<boolean> {
  const removed = await updateItem(
    {
      Key: keys.trendHidden(kind, hiddenValue(kind, value)),
      UpdateExpression: 'REMOVE trendable, hiddenAt, reviewedAt',
      ConditionExpression: 'trendable = :f OR (attribute_exists(hiddenAt) AND attribute_not_exists(trendable))',
      ExpressionAttributeValues: { ':f': false },
    },
    reviewItem,
  );
  return removed !== undefined;
}

/** One rejected item: its kind, its key value (status id, URL hash, tag, domain) and what the operator named. */
export type HiddenTrend = { kind: HiddenTrendKind; value: string; label: string };

/** Every rejected item (one Query). */
export async function hiddenTrendList(): Promise<HiddenTrend[]> {
  return (await trendReviewList()).filter((r) => r.trendable === false).map(({ kind, value, label }) => ({ kind, value, label }));
}

/** Everything rejected, by kind (one Query). */
export async function hiddenTrends(): Promise<HiddenTrends> {
  const out: HiddenTrends = { status: new Set(), link: new Set(), tag: new Set(), publisher: new Set() };
  for (const item of await hiddenTrendList()) out[item.kind].add(item.value);
  return out;
}

// ---- ids: Mastodon numbers its preview cards and providers; ours are derived from what keys them ----

/** A decimal id of at most 63 bits derived from a hex digest: the same thing always has the same id, with no read. */
export const idOfDigest = (hex: string): string => (BigInt(`0x${hex.slice(0, 16)}`) >> 1n).toString();
/** A trending link's id (the admin API's), from its URL hash. */
export const linkIdOf = (hash: string): string => idOfDigest(hash);
/** A publisher's host: the link's host name, lower-cased, without `www.` (Mastodon's PreviewCardProvider domain). */
export const publisherDomainOf = (url: string): string | undefined => {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
};
export const publisherIdOf = (domain: string): string => idOfDigest(sha256(`publisher:${domain}`));

// ---- publishers ----

export const publisherItem = z.object({
  id: z.string(),
  domain: z.string(),
  trendable: z.boolean().nullable().default(null),
  reviewedAt: z.string().nullable().default(null),
  requestedReviewAt: z.string().nullable().default(null),
});
export type Publisher = z.infer<typeof publisherItem>;

/** Written with a link's first entry into a day's candidates (no condition: whichever link comes first names it). */
const publisherSeen = (domain: string, at: string): TransactItem => ({
  Update: {
    Key: keys.trendPublisher(publisherIdOf(domain)),
    UpdateExpression: 'SET #domain = :domain, id = :id, requestedReviewAt = if_not_exists(requestedReviewAt, :at)',
    ExpressionAttributeNames: { '#domain': 'domain' },
    ExpressionAttributeValues: { ':domain': domain, ':id': publisherIdOf(domain), ':at': at },
  },
});

/** A page of publishers, newest id first (one Query). */
export const publishersPage = (page: Page): Promise<Publisher[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.trendPublishersPartition() }, page, publisherItem);

export const publisherById = (id: string): Promise<Publisher | undefined> => getItem(keys.trendPublisher(id), publisherItem);

/** Approves or rejects a publisher: its own item and its review (read by every link trends read), in one transaction. */
export async function reviewPublisher(publisher: Publisher, trendable: boolean, at: Date = new Date()): Promise<Publisher | undefined> {
  const reviewedAt = at.toISOString();
  const done = await transact([
    {
      Update: {
        Key: keys.trendPublisher(publisher.id),
        UpdateExpression: 'SET trendable = :t, reviewedAt = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':t': trendable, ':at': reviewedAt },
      },
    },
    {
      Update: {
        Key: keys.trendHidden('publisher', publisher.domain),
        UpdateExpression: 'SET label = :d, trendable = :t, reviewedAt = :at REMOVE hiddenAt',
        ExpressionAttributeValues: { ':d': publisher.domain, ':t': trendable, ':at': reviewedAt },
      },
    },
  ]);
  return done.ok ? { ...publisher, trendable, reviewedAt } : undefined;
}
