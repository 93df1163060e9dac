// Keyword filters (Mastodon's CustomFilter, API v1): one item per filter under its owner.
import { z } from 'zod';
import { keys } from './keys';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws';
import { config } from '../config';
import { batchGet, deleteItem, getItem, putItem, queryAll, updateItem } from './table';

export const filterContexts = ['home', 'notifications', 'public', 'thread'] as const;
export type FilterContext = (typeof filterContexts)[number];

export const filterItem = z.object({
  id: z.string(),
  accountId: z.string(),
  phrase: z.string(),
  context: z.array(z.enum(filterContexts)),
  wholeWord: z.boolean(),
  irreversible: z.boolean(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Filter = z.infer<typeof filterItem>;

export const filterById = (accountId: string, id: string) => getItem(keys.filter(accountId, id), filterItem, true);

export async function filtersOf(accountId: string): Promise<Filter[]> {
  return queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.filtersPartition(accountId) } }, filterItem);
}

export async function createFilter(filter: Filter): Promise<void> {
  const written = await putItem({ ...keys.filter(filter.accountId, filter.id), ...filterItem.parse(filter) }, { ifAbsent: true });
  if (!written) throw new Error(`filter id collision ${filter.id}`);
}

export type FilterChanges = Partial<Pick<Filter, 'phrase' | 'context' | 'wholeWord' | 'irreversible' | 'expiresAt'>>;

/** Updates an existing filter; undefined when it does not exist. */
export async function updateFilter(accountId: string, id: string, changes: FilterChanges): Promise<Filter | undefined> {
  const sets: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  if (sets.length === 0) {
    return filterById(accountId, id);
  }
  return updateItem(
    {
      Key: keys.filter(accountId, id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    filterItem,
  );
}

export const deleteFilter = (accountId: string, id: string) =>
  deleteItem(keys.filter(accountId, id), filterItem, { ConditionExpression: 'attribute_exists(PK)' });

// ---- the irreversible-filter summary (one item per account that has any) ----

/** A copy of an account's irreversible filters; `readAt` orders concurrent rewrites. */
const summaryItem = z.object({ accountId: z.string(), filters: z.array(filterItem), readAt: z.number() });

/**
 * Rewrites the summary from a consistent read of the account's filters. Two
 * concurrent rewrites are ordered by the time of their read: a rewrite from an
 * older read never replaces one from a newer read.
 */
export async function refreshIrreversibleSummary(accountId: string): Promise<void> {
  const readAt = Date.now();
  const filters = (
    await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.filtersPartition(accountId) }, ConsistentRead: true }, filterItem)
  ).filter((f) => f.irreversible);
  const Key = keys.irreversibleFilters(accountId);
  const newer = { ConditionExpression: 'attribute_not_exists(PK) OR readAt <= :readAt', ExpressionAttributeValues: { ':readAt': readAt } };
  try {
    if (filters.length === 0) await dynamo().send(new DeleteCommand({ TableName: config.tableName, Key, ...newer }));
    else await dynamo().send(new PutCommand({ TableName: config.tableName, Item: { ...Key, ...summaryItem.parse({ accountId, filters, readAt }) }, ...newer }));
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

/** The irreversible filters of each of `accountIds` that has any (BatchGet, 100 keys per call). */
export async function irreversibleFiltersOf(accountIds: string[]): Promise<Map<string, Filter[]>> {
  const found = await batchGet(accountIds.map((id) => keys.irreversibleFilters(id)), summaryItem);
  return new Map([...found.values()].map((s) => [s.accountId, s.filters]));
}
