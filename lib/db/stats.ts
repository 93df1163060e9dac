// Instance-wide counters (users, statuses, known domains) on one item, read by
// /api/v1/instance, /api/v2/instance and NodeInfo.
//
// Every post, deletion and registration on the instance moves one of them, so the
// item is the hottest in the table: inside the posting transaction, two posts at
// the same moment conflicted and one was cancelled. They are moved with a plain
// atomic ADD after the write they count has committed instead: a cancelled or
// refused write counts nothing, a committed one counts once (a single ADD is never
// refused for another ADD; DynamoDB serialises them on the item). The one way to
// miss a count is the function stopping between the commit and the ADD. Sharding
// the item would keep the count inside the transaction but make every read of the
// instance cost one read per shard, for counters nobody needs exact to the post.
import { z } from 'zod';
import { log } from '../log';
import { keys } from './keys';
import { getItem, updateItem } from './table';

const statsItem = z.object({
  userCount: z.number().int().default(0),
  statusCount: z.number().int().default(0),
  domainCount: z.number().int().default(0),
});
export type InstanceStats = z.infer<typeof statsItem>;

/** The counters; an instance that never counted anything has zeros. */
export async function instanceStats(): Promise<InstanceStats> {
  const stored = await getItem(keys.instanceStats(), statsItem);
  const stats = stored ?? statsItem.parse({});
  // Counters move with concurrent ADDs; never show a transient negative.
  return { userCount: Math.max(0, stats.userCount), statusCount: Math.max(0, stats.statusCount), domainCount: Math.max(0, stats.domainCount) };
}

/**
 * Moves an instance counter once the write it counts has committed. The write
 * stands even if counting fails (logged): failing the request would make the
 * client retry something that already happened.
 */
export async function countOnInstance(counter: keyof InstanceStats, delta: number): Promise<void> {
  try {
    await updateItem(
      { Key: keys.instanceStats(), UpdateExpression: 'ADD #c :d', ExpressionAttributeNames: { '#c': counter }, ExpressionAttributeValues: { ':d': delta } },
      statsItem,
    );
  } catch (err) {
    log.error('instance counter not moved', { counter, delta, err });
  }
}
