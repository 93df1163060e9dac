// Annual reports ("Wrapstodon", Mastodon 4.3+): one item per account and year holding the report's data as
// Mastodon's GeneratedAnnualReport keeps it, the claim that a year's report is being generated, and the reads
// a generation makes: the account's statuses of one year (GSI1, an id range) and its follow edges of one year.
// Those reads go page by page (1 MB each) through a visitor, so a heavy account costs pages, never memory.
import { z } from 'zod';
import { idAt, padId } from '../ids';
import * as gsi1 from './gsi1';
import * as keys from './keys';
import { batchGet, deleteItem, expiresIn, getItem, putItem, query, queryAll, updateItem, type Item } from './table';

/** Mastodon's archetypes (AnnualReport::Archetype). */
export const archetypes = ['lurker', 'booster', 'pollster', 'replier', 'oracle'] as const;

/** Schema version 2 of the report's data (Mastodon 4.5: archetype, top statuses, time series, top hashtags). */
export const annualReportData = z.object({
  archetype: z.enum(archetypes),
  time_series: z.array(z.object({ month: z.number().int(), statuses: z.number().int(), followers: z.number().int(), following: z.number().int() })),
  top_hashtags: z.array(z.object({ name: z.string(), count: z.number().int() })),
  top_statuses: z.object({ by_reblogs: z.string().nullable(), by_replies: z.string().nullable(), by_favourites: z.string().nullable() }),
});
export type AnnualReportData = z.infer<typeof annualReportData>;

export const annualReportItem = z.object({
  accountId: z.string(),
  year: z.number().int(),
  schemaVersion: z.number().int(),
  data: annualReportData,
  createdAt: z.string(),
  /** Set by POST .../read; a report not yet viewed is listed by GET /api/v1/annual_reports. */
  viewedAt: z.string().nullable().default(null),
});
export type AnnualReport = z.infer<typeof annualReportItem>;

/** Stores a report unless the account already has one for that year (a second generation changes nothing). */
export const putAnnualReport = (report: AnnualReport): Promise<boolean> =>
  putItem({ ...keys.annualReport(report.accountId, report.year), ...annualReportItem.parse(report) }, { ifAbsent: true });

/** The account's report of one year, read consistently: a report the worker has just written is seen at once. */
export const annualReportOf = (accountId: string, year: number) => getItem(keys.annualReport(accountId, year), annualReportItem, true);

/** The account's reports not yet viewed, oldest year first: one Query of a partition of one item a year. */
export const unviewedAnnualReports = (accountId: string): Promise<AnnualReport[]> =>
  queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'attribute_not_exists(viewedAt) OR attribute_type(viewedAt, :null)',
      ExpressionAttributeValues: { ':pk': keys.annualReportsPartition(accountId), ':prefix': keys.ANNUAL_REPORT_PREFIX, ':null': 'NULL' },
    },
    annualReportItem,
  );

/** Marks a report viewed (again, as Mastodon touches `viewed_at`); undefined when the account has no report that year. */
export const markAnnualReportViewed = (accountId: string, year: number, at: string) =>
  updateItem(
    {
      Key: keys.annualReport(accountId, year),
      UpdateExpression: 'SET viewedAt = :at',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':at': at },
    },
    annualReportItem,
  );

// ---- the generation claim ----

export const annualReportGenerationItem = z.object({
  /** The async refresh a client is told of (lib/db/async_refreshes.ts). */
  refreshId: z.string(),
  startedAt: z.string(),
  /** TTL (seconds since the epoch); reads check it too, TTL deletion being lazy. */
  expiresAt: z.number().int(),
});
export type AnnualReportGeneration = z.infer<typeof annualReportGenerationItem>;

/**
 * Claims the generation of a year's report for `ttlSeconds`: answers the claim, or undefined when a claim that has
 * not expired holds it already (two requests at once start one generation).
 */
export const claimAnnualReportGeneration = (accountId: string, year: number, refreshId: string, at: string, ttlSeconds: number) =>
  updateItem(
    {
      Key: keys.annualReportGeneration(accountId, year),
      UpdateExpression: 'SET refreshId = :refresh, startedAt = :at, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :now',
      ExpressionAttributeValues: { ':refresh': refreshId, ':at': at, ':expires': expiresIn(ttlSeconds), ':now': Math.floor(Date.now() / 1000) },
    },
    annualReportGenerationItem,
  );

/** The claim on a year's generation while it holds; one past its TTL counts as gone. */
export async function annualReportGenerationOf(accountId: string, year: number): Promise<AnnualReportGeneration | undefined> {
  const claim = await getItem(keys.annualReportGeneration(accountId, year), annualReportGenerationItem, true);
  return claim && claim.expiresAt > Math.floor(Date.now() / 1000) ? claim : undefined;
}

/** Ends a claim (the report is stored, or the message could not be queued). */
export const releaseAnnualReportGeneration = (accountId: string, year: number) =>
  deleteItem(keys.annualReportGeneration(accountId, year), annualReportGenerationItem);

// ---- what a generation reads ----

/** What a report needs of a status: no text, no media, no mentions. */
export const yearStatusItem = z.object({
  id: z.string(),
  createdAt: z.string(),
  visibility: z.string(),
  reblogOfId: z.string().nullable().default(null),
  inReplyToId: z.string().nullable().default(null),
  inReplyToAccountId: z.string().nullable().default(null),
  pollId: z.string().nullable().default(null),
  tags: z.array(z.string()).default([]),
  tagNames: z.array(z.string()).optional(),
  repliesCount: z.number().int().default(0),
  reblogsCount: z.number().int().default(0),
  favouritesCount: z.number().int().default(0),
});
export type YearStatus = z.infer<typeof yearStatusItem>;

const YEAR_STATUS_ATTRIBUTES = Object.keys(yearStatusItem.shape);
/** Every attribute by a placeholder name: some (`visibility`) are among DynamoDB's reserved words. */
const projectionOf = (attributes: string[]) => ({
  ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
});

/** The smallest and the largest status id minted in a calendar year (UTC), as Mastodon's snowflake range of the year. */
export const yearIdRange = (year: number) => ({
  lo: idAt(Date.UTC(year, 0, 1)),
  hi: (BigInt(idAt(Date.UTC(year + 1, 0, 1))) - 1n).toString(),
});

/** What reading a year cost, for the generation's log line. */
export type YearReadCost = { queries: number; items: number };

/** Runs `visit` on each Query page until the partition (or range) ends. */
async function eachPage<T>(input: Parameters<typeof query>[0], parser: z.ZodType<T, z.ZodTypeDef, unknown>, visit: (items: T[]) => void, cost: YearReadCost) {
  let start: Item | undefined;
  do {
    const page = await query({ ...input, ExclusiveStartKey: start }, parser);
    cost.queries++;
    cost.items += page.items.length;
    visit(page.items);
    start = page.lastKey;
  } while (start);
}

/**
 * The account's statuses and reblogs minted in `year`, page by page, oldest first: the author's-statuses index
 * (GSI1) read over the year's id range, only the attributes a report needs.
 */
export function eachStatusOfYear(accountId: string, year: number, visit: (statuses: YearStatus[]) => void, cost: YearReadCost): Promise<void> {
  const range = yearIdRange(year);
  const projection = projectionOf(YEAR_STATUS_ATTRIBUTES);
  return eachPage(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p AND GSI1SK BETWEEN :lo AND :hi',
      ...projection,
      ExpressionAttributeValues: { ':p': gsi1.accountStatusesPartition(accountId), ':lo': padId(range.lo), ':hi': padId(range.hi) },
    },
    yearStatusItem,
    visit,
    cost,
  );
}

const createdAtItem = z.object({ createdAt: z.string() });

/**
 * When each of the account's follow edges made in `year` was made: those it follows (`following`, its own
 * FOLLOWING partition) or those following it (`followers`, GSI1). Edges are keyed by account, not by time, so the
 * whole partition is read (only `createdAt`, the other years filtered out by DynamoDB).
 */
export function eachFollowOfYear(
  accountId: string,
  direction: 'following' | 'followers',
  year: number,
  visit: (edges: { createdAt: string }[]) => void,
  cost: YearReadCost,
): Promise<void> {
  const target =
    direction === 'following'
      ? { KeyConditionExpression: 'PK = :p', partition: keys.followingPartition(accountId) }
      : { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p', partition: gsi1.followersPartition(accountId) };
  return eachPage(
    {
      ...(target.IndexName ? { IndexName: target.IndexName } : {}),
      KeyConditionExpression: target.KeyConditionExpression,
      FilterExpression: 'begins_with(#createdAt, :year)',
      ProjectionExpression: '#createdAt',
      ExpressionAttributeNames: { '#createdAt': 'createdAt' },
      ExpressionAttributeValues: { ':p': target.partition, ':year': `${year}-` },
    },
    createdAtItem,
    visit,
    cost,
  );
}

const tagNameItem = z.object({ PK: z.string(), name: z.string() });

/** The display names of tags (each as first used here, Mastodon's COALESCE(display_name, name)): one batch read. */
export async function tagDisplayNames(tags: string[]): Promise<Map<string, string>> {
  const found = await batchGet(tags.map((tag) => keys.tag(tag)), tagNameItem);
  return new Map([...found.values()].map((item) => [item.PK.slice(keys.tag('').PK.length), item.name]));
}
