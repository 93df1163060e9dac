// Distributions owed: a new local status whose fan-out has not yet run its first page. The record is written
// in the posting transaction (lib/db/status_writes.ts), so a status never stands without it until its first
// fan-out page is done, whatever fails between the commit and the worker (a throttled queue, a timeout, a
// crash); the sweeper re-drives what stays owed past a grace period (lib/timelines/fanout_owed.ts).
import { z } from 'zod';
import { idAt, padId } from '../ids';
import * as keys from './keys';
import { deleteItem, getItem, query, updateItem, type TransactItem } from './table';

const owedItem = z.object({ statusId: z.string(), redrives: z.number().int().nonnegative(), nextAt: z.number() });
export type OwedFanout = z.infer<typeof owedItem>;

/** The owed record of a new status, due for a re-drive at `dueAt` (epoch ms). */
export const putFanoutOwed = (statusId: string, dueAt: number): TransactItem => ({
  Put: { Item: { ...keys.fanoutOwed(statusId), ...owedItem.parse({ statusId, redrives: 0, nextAt: dueAt }) } },
});

/** Is the status's distribution still owed? (Consistent: asked right after a post or a worker's page.) */
export async function fanoutOwed(statusId: string): Promise<OwedFanout | undefined> {
  return getItem(keys.fanoutOwed(statusId), owedItem, true);
}

/** The first fan-out page is done: nothing is owed any more. */
export async function clearFanoutOwed(statusId: string): Promise<void> {
  await deleteItem(keys.fanoutOwed(statusId), z.unknown());
}

/**
 * Owed distributions due at `now`, of statuses posted before `postedBefore`: one Query per shard (key range on
 * the id, oldest first; `nextAt` filters out those re-driven lately), following LastEvaluatedKey up to `limit`.
 */
export async function dueOwedFanouts(postedBefore: number, now: number, limit: number): Promise<OwedFanout[]> {
  const shards = Array.from({ length: keys.FANOUT_OWED_SHARDS }, (_, shard) => shard);
  const perShard = await Promise.all(
    shards.map(async (shard) => {
      const found: OwedFanout[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await query(
          {
            KeyConditionExpression: 'PK = :pk AND SK < :before',
            FilterExpression: 'nextAt <= :now',
            ExpressionAttributeValues: { ':pk': keys.fanoutOwedPartition(shard), ':before': padId(idAt(postedBefore)), ':now': now },
            ExclusiveStartKey: start,
            ConsistentRead: true,
          },
          owedItem,
        );
        found.push(...page.items);
        start = page.lastKey;
      } while (start && found.length < limit);
      return found;
    }),
  );
  return perShard.flat().slice(0, limit);
}

/**
 * Takes the re-drive of `owed` as the sweeper read it: the count moves on and the next try waits `nextAt`.
 * False when another run took it meanwhile (or the first page was done: the record is gone).
 */
export async function takeRedrive(owed: OwedFanout, nextAt: number): Promise<boolean> {
  const taken = await updateItem(
    {
      Key: keys.fanoutOwed(owed.statusId),
      UpdateExpression: 'SET redrives = :next, nextAt = :at',
      ConditionExpression: 'redrives = :seen',
      ExpressionAttributeValues: { ':next': owed.redrives + 1, ':at': nextAt, ':seen': owed.redrives },
    },
    owedItem,
  );
  return taken !== undefined;
}
