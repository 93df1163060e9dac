// Id-range queries over a list partition whose sort key is a padded id: the
// `max_id` / `since_id` / `min_id` / `limit` page of Mastodon's list endpoints
// as one key condition, newest first (`min_id` reads upward, then turns round).
// The range itself is lib/paging's; this is the one place it becomes a key condition.
import type { QueryInput } from '../aws';
import { padId } from '../ids';
import { pageRange, type IdRange, type Page } from '../paging';
import { query, type Item, type Parser } from './table';

export type RangeTarget = {
  index?: string;
  partitionAttr: 'PK' | 'GSI1PK';
  sortAttr: 'SK' | 'GSI1SK';
  partition: string;
};

export type RangeFilter = {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
};

/**
 * The one key condition of a page over an id-sorted sort key (lib/paging's range as
 * DynamoDB's BETWEEN / >= / <=), for `target`'s partition; undefined when the range is
 * empty, so the caller answers without a Query.
 */
export function idRangeKeyCondition(target: RangeTarget, page: IdRange): Omit<QueryInput, 'TableName'> | undefined {
  const range = pageRange(page);
  if (!range) return undefined;
  const values: Record<string, unknown> = { ':p': target.partition };
  let condition = `${target.partitionAttr} = :p`;
  if (range.lo !== undefined && range.hi !== undefined) {
    condition += ` AND ${target.sortAttr} BETWEEN :lo AND :hi`;
    Object.assign(values, { ':lo': range.lo, ':hi': range.hi });
  } else if (range.lo !== undefined) {
    condition += ` AND ${target.sortAttr} >= :lo`;
    values[':lo'] = range.lo;
  } else if (range.hi !== undefined) {
    condition += ` AND ${target.sortAttr} <= :hi`;
    values[':hi'] = range.hi;
  }
  return {
    ...(target.index ? { IndexName: target.index } : {}),
    KeyConditionExpression: condition,
    ExpressionAttributeValues: values,
    // min_id asks for the page immediately newer: read upward from it.
    ScanIndexForward: range.ascending,
  };
}

/**
 * One page of a list, newest first. Without a filter this is one Query. With a
 * filter (or an `accept` step, e.g. visibility) it reads on until the page is
 * full, the partition ends, or `maxCalls` Queries were made.
 */
export async function queryIdRange<T>(
  target: RangeTarget,
  page: Page,
  parser: Parser<T>,
  opts: { filter?: RangeFilter; accept?: (items: T[]) => Promise<T[]>; maxCalls?: number } = {},
): Promise<T[]> {
  const base = idRangeKeyCondition(target, page);
  if (!base || page.limit < 1) return [];
  const filtered = opts.filter !== undefined || opts.accept !== undefined;
  const input: Omit<QueryInput, 'TableName'> = {
    ...base,
    ...(opts.filter
      ? {
          FilterExpression: opts.filter.expression,
          ...(opts.filter.names ? { ExpressionAttributeNames: opts.filter.names } : {}),
          ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ...opts.filter.values },
        }
      : {}),
    // A filtered read evaluates more items per call so that a page usually fills in one.
    Limit: filtered ? Math.max(page.limit * 2, 40) : page.limit,
  };
  const out: T[] = [];
  let start: Item | undefined;
  let calls = 0;
  const maxCalls = filtered ? opts.maxCalls ?? 5 : 1;
  do {
    const res = await query({ ...input, ExclusiveStartKey: start }, parser);
    calls++;
    out.push(...(opts.accept ? await opts.accept(res.items) : res.items));
    start = res.lastKey;
  } while (start && out.length < page.limit && calls < maxCalls);
  const taken = out.slice(0, page.limit);
  return page.min_id !== undefined ? taken.reverse() : taken;
}

/**
 * The page of a list read whole (a partition of a few hundred items, which its readers need whole anyway),
 * by the same rules as a Query's range: newest first, `min_id` the page immediately newer.
 */
export function pageOfWhole<T extends { id: string }>(items: readonly T[], page: Page): T[] {
  const range = pageRange(page);
  if (!range || page.limit < 1) return [];
  const inRange = items
    .filter((item) => (range.lo === undefined || padId(item.id) >= range.lo) && (range.hi === undefined || padId(item.id) <= range.hi))
    .sort((a, b) => (padId(a.id) < padId(b.id) ? 1 : -1));
  return range.ascending ? inRange.slice(-page.limit) : inRange.slice(0, page.limit);
}
