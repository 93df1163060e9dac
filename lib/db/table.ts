// Thin, typed wrappers over the document API (lib/aws): every item read goes through a
// parser, batch operations are chunked and retried, and conditional failures
// surface as a value rather than an exception the caller has to decode.
//
// Conflicts are retried here, in one place. DynamoDB refuses a write to an item
// an ongoing transaction holds (TransactionConflictException) and cancels a
// transaction that touches such an item (TransactionCanceledException, reason
// TransactionConflict); the SDK's retry strategy retries neither. Either way
// nothing was written, so running the same request again is safe: it is retried a
// bounded number of times with jittered backoff. A failed condition is an answer,
// never retried.
import type { z } from 'zod';
import { dynamo, isAwsError, type CancellationReason, type QueryInput, type TransactWriteItem, type UpdateInput } from '../aws';
import { config } from '../config';
import { ItemTooLarge } from '../errors';
import { assertItemFits } from './item_size';
import type { Key } from './keys';

export type Item = Record<string, unknown>;
export type Parser<T> = z.ZodType<T, z.ZodTypeDef, unknown>;

const table = () => config.tableName;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs of one request refused for a conflict, the first included. 24 favourites of
 * one status at the same moment needed up to 9 on the local layer (whose
 * transactions hold their items about as long as DynamoDB's); 12 leaves room.
 */
export const CONFLICT_ATTEMPTS = 12;

/** Cancelled only because another transaction held an item: nothing failed that a retry would not change. */
const reasonsOf = (err: unknown): CancellationReason[] => ((err as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []);

const cancelledForConflict = (err: unknown): boolean =>
  isAwsError(err, 'TransactionCanceledException') &&
  reasonsOf(err).some((r) => r.Code === 'TransactionConflict') &&
  reasonsOf(err).every((r) => r.Code === 'TransactionConflict' || r.Code === 'None' || r.Code === undefined);

const isConflict = (err: unknown): boolean => isAwsError(err, 'TransactionConflictException') || cancelledForConflict(err);

/**
 * An update that would take its item over the limit is refused by DynamoDB (no item is measured here before an
 * update: its size after depends on what is stored). It becomes the same named failure as an oversized Put.
 */
const tooLargeOf = (err: unknown, key: string): unknown => {
  const sizeRefused =
    (isAwsError(err, 'ValidationException') && /item size/i.test((err as Error).message)) ||
    (isAwsError(err, 'TransactionCanceledException') && reasonsOf(err).some((r) => r.Code === 'ValidationError' && /item size/i.test(r.Message ?? '')));
  return sizeRefused ? new ItemTooLarge(key, -1) : err;
};

/**
 * Runs `send` again while it is refused for a conflict, up to CONFLICT_ATTEMPTS
 * runs. Full jitter over a window that doubles from 20 ms (to at most 1 s) spreads
 * the requests that collided, so that each retry round lets more of them through.
 */
async function retryingConflicts<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (!isConflict(err) || attempt >= CONFLICT_ATTEMPTS) throw err;
      await sleep(Math.random() * Math.min(1000, 20 * 2 ** (attempt - 1)));
    }
  }
}

export const parseItem = <T>(parser: Parser<T>, item: Item | undefined): T | undefined =>
  item === undefined ? undefined : parser.parse(item);

export async function getItem<T>(key: Key, parser: Parser<T>, consistent = false): Promise<T | undefined> {
  const { Item } = await dynamo().get({ TableName: table(), Key: key, ConsistentRead: consistent });
  return parseItem(parser, Item);
}

/** Writes an item; with `ifAbsent`, answers false instead of overwriting an existing one. */
export async function putItem(item: Key & Item, opts: { ifAbsent?: boolean } = {}): Promise<boolean> {
  assertItemFits(item);
  try {
    await retryingConflicts(() =>
      dynamo().put({
        TableName: table(),
        Item: item,
        ...(opts.ifAbsent ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (isAwsError(err, 'ConditionalCheckFailedException')) return false;
    throw err;
  }
}

/** Runs an update; answers the new item, or undefined when its condition failed. */
export async function updateItem<T>(
  input: Omit<UpdateInput, 'TableName' | 'ReturnValues'>,
  parser: Parser<T>,
): Promise<T | undefined> {
  try {
    const { Attributes } = await retryingConflicts(() =>
      dynamo().update({ ...input, TableName: table(), ReturnValues: 'ALL_NEW' }),
    );
    return parseItem(parser, Attributes);
  } catch (err) {
    if (isAwsError(err, 'ConditionalCheckFailedException')) return undefined;
    throw tooLargeOf(err, `${String(input.Key?.PK)}|${String(input.Key?.SK)}`);
  }
}

/** Deletes an item; with a condition, answers the deleted item or undefined when it did not match. */
export async function deleteItem<T>(
  key: Key,
  parser: Parser<T>,
  condition?: { ConditionExpression: string; ExpressionAttributeValues?: Item; ExpressionAttributeNames?: Record<string, string> },
): Promise<T | undefined> {
  try {
    const { Attributes } = await retryingConflicts(() =>
      dynamo().delete({ TableName: table(), Key: key, ReturnValues: 'ALL_OLD', ...condition }),
    );
    return parseItem(parser, Attributes);
  } catch (err) {
    if (isAwsError(err, 'ConditionalCheckFailedException')) return undefined;
    throw err;
  }
}

export type QueryPage<T> = { items: T[]; lastKey?: Item };

export async function query<T>(
  input: Omit<QueryInput, 'TableName'>,
  parser: Parser<T>,
): Promise<QueryPage<T>> {
  const { Items = [], LastEvaluatedKey } = await dynamo().query({ ...input, TableName: table() });
  return { items: Items.map((item) => parser.parse(item)), lastKey: LastEvaluatedKey };
}

/** Follows LastEvaluatedKey to the end. */
export async function queryAll<T>(input: Omit<QueryInput, 'TableName'>, parser: Parser<T>): Promise<T[]> {
  const out: T[] = [];
  let start: Item | undefined;
  do {
    const page = await query({ ...input, ExclusiveStartKey: start }, parser);
    out.push(...page.items);
    start = page.lastKey;
  } while (start);
  return out;
}

/** Reads many keys: chunks of 100, unprocessed keys retried with backoff. Order follows `keyList`. */
export async function batchGet<T>(keyList: Key[], parser: Parser<T>, projection?: string, opts: { consistent?: boolean } = {}): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  const unique = [...new Map(keyList.map((k) => [`${k.PK}|${k.SK}`, k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Key[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      if (attempt > 8) throw new Error('batchGet: unprocessed keys after retries');
      const res = await dynamo().batchGet({
        RequestItems: { [table()]: { Keys: pending, ...(projection ? { ProjectionExpression: projection } : {}), ...(opts.consistent ? { ConsistentRead: true } : {}) } },
      });
      for (const item of res.Responses?.[table()] ?? []) {
        found.set(`${String(item.PK)}|${String(item.SK)}`, parser.parse(item));
      }
      pending = (res.UnprocessedKeys?.[table()]?.Keys as Key[] | undefined) ?? [];
    }
  }
  return found;
}

export const keyString = (k: Key) => `${k.PK}|${k.SK}`;

/** Writes and deletes in chunks of 25, unprocessed items retried with backoff. */
export async function batchWrite(puts: (Key & Item)[], deletes: Key[] = []): Promise<void> {
  puts.forEach(assertItemFits);
  const requests = [
    ...puts.map((Item) => ({ PutRequest: { Item } })),
    ...deletes.map((Key) => ({ DeleteRequest: { Key } })),
  ];
  for (let i = 0; i < requests.length; i += 25) {
    let pending: unknown[] = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      if (attempt > 8) throw new Error('batchWrite: unprocessed items after retries');
      const batch = pending;
      const res = await retryingConflicts(() => dynamo().batchWrite({ RequestItems: { [table()]: batch as never } }));
      pending = res.UnprocessedItems?.[table()] ?? [];
    }
  }
}

type RawTransactItem = TransactWriteItem;
/** A transaction entry without its TableName, which `transact` fills in. */
export type TransactItem = { [K in keyof RawTransactItem]?: Omit<NonNullable<RawTransactItem[K]>, 'TableName'> };

/**
 * Runs a transaction. Answers `{ ok: true }`, or `{ ok: false, failed }` with the
 * indexes of the items whose condition failed, so callers can say which rule broke.
 * A transaction cancelled only because another one held one of its items is run
 * again (see retryingConflicts): its conditions are then evaluated afresh.
 */
export async function transact(items: TransactItem[]): Promise<{ ok: true } | { ok: false; failed: number[] }> {
  for (const entry of items) if (entry.Put) assertItemFits(entry.Put.Item as Item);
  const withTable = items.map((entry) => {
    const [kind, body] = Object.entries(entry)[0] as [string, Item];
    return { [kind]: { ...body, TableName: table() } } as RawTransactItem;
  });
  try {
    await retryingConflicts(() => dynamo().transactWrite({ TransactItems: withTable }));
    return { ok: true };
  } catch (err) {
    if (isAwsError(err, 'TransactionCanceledException')) {
      const reasons = reasonsOf(err);
      const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
      if (failed.length > 0) return { ok: false, failed };
    }
    throw tooLargeOf(err, 'a transaction item');
  }
}

/**
 * `SET #a0 = :v0, ...` for the attributes given (undefined ones left out), with their
 * names and values, for an UpdateItem. Attribute names are always aliased: some are
 * DynamoDB reserved words (`domain`, `url`, `note`...).
 */
export function setAttributes(changes: Record<string, unknown>): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item } | undefined {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return undefined;
  const names: Record<string, string> = {};
  const values: Item = {};
  const sets = entries.map(([k, v], i) => {
    names[`#a${i}`] = k;
    values[`:v${i}`] = v;
    return `#a${i} = :v${i}`;
  });
  return { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

export const nowIso = () => new Date().toISOString();
/** TTL attribute value: seconds since the epoch. */
export const expiresIn = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;
