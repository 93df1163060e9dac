// Filters (Mastodon 4's CustomFilter with its keywords and statuses): one partition per
// account holding, for each filter, its item and one item per keyword and per filtered
// status, sorted under the filter's id, so one Query reads every filter whole. API v1's
// filters are views of the keywords (lib/filters/v1.ts).
//
// Items written before filters v2 (one item per v1 filter: phrase, whole_word, irreversible)
// are read as one-keyword filters whose keyword has the filter's id; the first write to such
// a filter replaces the old item by the v2 items (migration on write, in saveFilter).
//
// One summary item per account copies its `hide` filters (keywords and status ids) so the
// fan-out and the notify worker can batch-read them for a page of recipients; it is rewritten
// after every change from a consistent read of the partition.
import { z } from 'zod';
import * as keys from './keys';
import type { Key } from './keys';
import { dynamo, isAwsError } from '../aws';
import { oncePerRequest } from '../request_scope';
import { markHides, noteMarked, scopeKeys } from './viewer_summary';
import { config } from '../config';
import { batchGet, batchWrite, queryAll, transact, type TransactItem } from './table';

export const filterContexts = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof filterContexts)[number];
// `blur` (Mastodon 4.4) is `warn` to the server: the status is kept with its FilterResult, and only the client
// treats it otherwise (blurred media). Only `hide` is acted on here (lib/policy/filters.ts, streaming).
export const filterActions = ['warn', 'hide', 'blur'] as const;
export type FilterAction = (typeof filterActions)[number];

export type FilterKeyword = { id: string; keyword: string; wholeWord: boolean };
export type FilterStatus = { id: string; statusId: string };

/** A filter whole, as one read of the partition assembles it. */
export type CustomFilter = {
  id: string;
  accountId: string;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  expiresAt: string | null;
  createdAt: string;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
  /** Stored as a pre-v2 item: its one keyword (id = the filter's id) lives in the filter's item. */
  legacy: boolean;
};

const contextList = z.array(z.enum(filterContexts));
const filterRow = z.object({
  kind: z.literal('filter'),
  id: z.string(),
  accountId: z.string(),
  title: z.string(),
  context: contextList,
  action: z.enum(filterActions),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
});
const keywordRow = z.object({ kind: z.literal('keyword'), id: z.string(), filterId: z.string(), keyword: z.string(), wholeWord: z.boolean() });
const statusRow = z.object({ kind: z.literal('status'), id: z.string(), filterId: z.string(), statusId: z.string() });
/** A filter written by API v1 before v2 existed. */
const legacyRow = z.object({
  id: z.string(),
  accountId: z.string(),
  phrase: z.string(),
  context: contextList,
  wholeWord: z.boolean(),
  irreversible: z.boolean(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
});
const partitionRow = z.union([filterRow, keywordRow, statusRow, legacyRow]);
type PartitionRow = z.infer<typeof partitionRow>;

const fromLegacy = (r: z.infer<typeof legacyRow>): CustomFilter => ({
  id: r.id,
  accountId: r.accountId,
  title: r.phrase,
  context: r.context,
  action: r.irreversible ? 'hide' : 'warn',
  expiresAt: r.expiresAt,
  createdAt: r.createdAt,
  keywords: [{ id: r.id, keyword: r.phrase, wholeWord: r.wholeWord }],
  statuses: [],
  legacy: true,
});

/** Rows in sort-key order (filter item first, then its keywords and statuses) become filters; rows of a deleted filter are dropped. */
function assemble(rows: PartitionRow[]): CustomFilter[] {
  const byId = new Map<string, CustomFilter>();
  for (const row of rows) {
    if (!('kind' in row)) byId.set(row.id, fromLegacy(row));
    else if (row.kind === 'filter') {
      const { kind: _kind, ...rest } = row;
      byId.set(row.id, { ...rest, keywords: [], statuses: [], legacy: false });
    } else if (row.kind === 'keyword') byId.get(row.filterId)?.keywords.push({ id: row.id, keyword: row.keyword, wholeWord: row.wholeWord });
    else byId.get(row.filterId)?.statuses.push({ id: row.id, statusId: row.statusId });
  }
  return [...byId.values()];
}

/**
 * Every filter of an account, oldest first (one Query; consistent when a write follows). The
 * eventually consistent read is made once per invocation: the policy (hide) and the renderer
 * (`filtered`) both ask for the viewer's filters.
 */
export async function filtersOfAccount(accountId: string, consistent = false): Promise<CustomFilter[]> {
  const read = async () =>
    assemble(
      await queryAll(
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.filtersPartition(accountId) }, ConsistentRead: consistent },
        partitionRow,
      ),
    );
  return consistent ? read() : oncePerRequest(scopeKeys.filters(accountId), read);
}

/** One filter of an account, whole (one Query of its items). */
export async function filterOfAccount(accountId: string, filterId: string): Promise<CustomFilter | undefined> {
  const rows = await queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.filtersPartition(accountId), ':prefix': keys.filterItemsPrefix(filterId) },
      ConsistentRead: true,
    },
    partitionRow,
  );
  return assemble(rows).find((f) => f.id === filterId);
}

const filterItem = (f: CustomFilter) => ({
  ...keys.filter(f.accountId, f.id),
  ...filterRow.parse({ kind: 'filter', id: f.id, accountId: f.accountId, title: f.title, context: f.context, action: f.action, expiresAt: f.expiresAt, createdAt: f.createdAt }),
});
const keywordItem = (f: CustomFilter, k: FilterKeyword) => ({
  ...keys.filterKeyword(f.accountId, f.id, k.id),
  ...keywordRow.parse({ kind: 'keyword', id: k.id, filterId: f.id, keyword: k.keyword, wholeWord: k.wholeWord }),
});
const statusItem = (f: CustomFilter, s: FilterStatus) => ({
  ...keys.filterStatus(f.accountId, f.id, s.id),
  ...statusRow.parse({ kind: 'status', id: s.id, filterId: f.id, statusId: s.statusId }),
});

const sameFilterFields = (a: CustomFilter, b: CustomFilter) =>
  a.title === b.title && a.action === b.action && a.expiresAt === b.expiresAt && a.context.join(',') === b.context.join(',');

/** The most items one filter write may touch (DynamoDB's transaction limit). */
export const MAX_FILTER_WRITE_ITEMS = 100;

/** How many items saving `after` over `before` writes (callers keep it under MAX_FILTER_WRITE_ITEMS). */
export const filterWriteSize = (before: CustomFilter | undefined, after: CustomFilter) => changes(before, after).length;

function changes(before: CustomFilter | undefined, after: CustomFilter): TransactItem[] {
  const items: TransactItem[] = [];
  const exists = { ConditionExpression: 'attribute_exists(PK)' };
  if (!before) items.push({ Put: { Item: filterItem(after), ConditionExpression: 'attribute_not_exists(PK)' } });
  else if (before.legacy || !sameFilterFields(before, after)) items.push({ Put: { Item: filterItem(after), ...exists } });
  else items.push({ ConditionCheck: { Key: keys.filter(after.accountId, after.id), ...exists } });
  // A pre-v2 filter's keyword lives in the item being replaced: it is written out as a keyword item.
  const stored = new Map((before?.keywords ?? []).filter((k) => !(before?.legacy && k.id === before.id)).map((k) => [k.id, k]));
  for (const k of after.keywords) {
    const was = stored.get(k.id);
    if (!was || was.keyword !== k.keyword || was.wholeWord !== k.wholeWord) items.push({ Put: { Item: keywordItem(after, k) } });
  }
  const kept = new Set(after.keywords.map((k) => k.id));
  for (const k of stored.values()) if (!kept.has(k.id)) items.push({ Delete: { Key: keys.filterKeyword(after.accountId, after.id, k.id) } });
  const statusesBefore = new Set((before?.statuses ?? []).map((s) => s.id));
  for (const s of after.statuses) if (!statusesBefore.has(s.id)) items.push({ Put: { Item: statusItem(after, s), ConditionExpression: 'attribute_not_exists(PK)' } });
  const statusesKept = new Set(after.statuses.map((s) => s.id));
  for (const s of before?.statuses ?? []) if (!statusesKept.has(s.id)) items.push({ Delete: { Key: keys.filterStatus(after.accountId, after.id, s.id) } });
  return items;
}

export type FilterSaveFailure = 'filter-gone' | 'filter-exists';

/**
 * Writes `after` (a new filter when `before` is undefined) in one transaction: the
 * filter's item when its fields changed (a pre-v2 item is always replaced), the keywords
 * and statuses that differ. Fails with 'filter-gone' when the filter was deleted meanwhile.
 */
export async function saveFilter(before: CustomFilter | undefined, after: CustomFilter): Promise<{ ok: true } | { failed: FilterSaveFailure }> {
  // A first filter marks its account as having filters (lib/db/viewer_summary.ts), in the same transaction.
  const items = [...changes(before, after), ...(before ? [] : [markHides(after.accountId, ['hasFilters'])])];
  const result = await transact(items);
  if (!before) noteMarked(after.accountId, ['hasFilters']);
  if (result.ok) return result;
  if (result.failed.includes(0)) return { failed: before ? 'filter-gone' : 'filter-exists' };
  throw new Error(`saving filter ${after.id}: transaction condition failed at ${result.failed.join(',')}`);
}

/**
 * Deletes a filter: its item first (conditioned on existing: false when it was already
 * gone), then its keywords and statuses (readers drop rows whose filter item is gone).
 */
export async function deleteFilter(filter: CustomFilter): Promise<boolean> {
  const result = await transact([{ Delete: { Key: keys.filter(filter.accountId, filter.id), ConditionExpression: 'attribute_exists(PK)' } }]);
  if (!result.ok) return false;
  const children: Key[] = [
    ...filter.keywords.filter((k) => !(filter.legacy && k.id === filter.id)).map((k) => keys.filterKeyword(filter.accountId, filter.id, k.id)),
    ...filter.statuses.map((s) => keys.filterStatus(filter.accountId, filter.id, s.id)),
  ];
  await batchWrite([], children);
  return true;
}

// ---- the hide-filter summary (one item per account that has any) ----

/** What the fan-out and notifications need of a `hide` filter to match a status. */
export const hideFilterSchema = z.object({
  id: z.string(),
  context: contextList,
  expiresAt: z.string().nullable(),
  keywords: z.array(z.object({ keyword: z.string(), wholeWord: z.boolean() })),
  statusIds: z.array(z.string()),
});
export type HideFilter = z.infer<typeof hideFilterSchema>;

/** Summaries written before filters v2 hold v1 irreversible filters: read them as hide filters of one keyword. */
const summaryEntry = z.union([
  hideFilterSchema,
  legacyRow.transform((r): HideFilter => ({ id: r.id, context: r.context, expiresAt: r.expiresAt, keywords: [{ keyword: r.phrase, wholeWord: r.wholeWord }], statusIds: [] })),
]);
/** A copy of an account's hide filters; `readAt` orders concurrent rewrites. */
const summaryItem = z.object({ accountId: z.string(), filters: z.array(summaryEntry), readAt: z.number() });

export const toHideFilter = (f: CustomFilter): HideFilter => ({
  id: f.id,
  context: f.context,
  expiresAt: f.expiresAt,
  keywords: f.keywords.map((k) => ({ keyword: k.keyword, wholeWord: k.wholeWord })),
  statusIds: f.statuses.map((s) => s.statusId),
});

/**
 * Rewrites the summary from a consistent read of the account's filters. Two
 * concurrent rewrites are ordered by the time of their read: a rewrite from an
 * older read never replaces one from a newer read.
 */
export async function refreshHideSummary(accountId: string): Promise<void> {
  const readAt = Date.now();
  const filters = (await filtersOfAccount(accountId, true)).filter((f) => f.action === 'hide' && (f.keywords.length > 0 || f.statuses.length > 0)).map(toHideFilter);
  const Key = keys.irreversibleFilters(accountId);
  const newer = { ConditionExpression: 'attribute_not_exists(PK) OR readAt <= :readAt', ExpressionAttributeValues: { ':readAt': readAt } };
  try {
    if (filters.length === 0) await dynamo().delete({ TableName: config.tableName, Key, ...newer });
    else await dynamo().put({ TableName: config.tableName, Item: { ...Key, ...summaryItem.parse({ accountId, filters, readAt }) }, ...newer });
  } catch (err) {
    if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
  }
}

/** The hide filters of each of `accountIds` that has any, with the time of the read they were copied from (BatchGet, 100 keys per call). */
export async function hideSummariesOf(accountIds: string[]): Promise<Map<string, { filters: HideFilter[]; readAt: number }>> {
  const found = await batchGet(accountIds.map((id) => keys.irreversibleFilters(id)), summaryItem);
  return new Map([...found.values()].map((s) => [s.accountId, { filters: s.filters, readAt: s.readAt }]));
}

/** The hide filters of each of `accountIds` that has any (BatchGet, 100 keys per call). */
export async function hideFiltersOf(accountIds: string[]): Promise<Map<string, HideFilter[]>> {
  return new Map([...(await hideSummariesOf(accountIds))].map(([id, s]) => [id, s.filters]));
}

/** The name the fan-out knew it by (v1's irreversible filters are v2's hide filters). */
export const irreversibleFiltersOf = hideFiltersOf;

// ---- API v1's view ----

/** A v1 filter: one keyword with its filter's settings (Mastodon's CustomFilterKeyword as REST::V1::FilterSerializer shows it). */
export type V1Filter = { id: string; filterId: string; phrase: string; context: FilterContext[]; wholeWord: boolean; irreversible: boolean; expiresAt: string | null };

export const v1FiltersOf = (filters: CustomFilter[]): V1Filter[] =>
  filters.flatMap((f) =>
    f.keywords.map((k) => ({ id: k.id, filterId: f.id, phrase: k.keyword, context: f.context, wholeWord: k.wholeWord, irreversible: f.action === 'hide', expiresAt: f.expiresAt })),
  );

/** An account's v1 filters (every keyword of every filter). */
export const filtersOf = async (accountId: string): Promise<V1Filter[]> => v1FiltersOf(await filtersOfAccount(accountId));
