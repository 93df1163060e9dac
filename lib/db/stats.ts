// Instance-wide counters (users, statuses, known domains). Other code bumps them
// with atomic ADDs (registration, posting, federation); this only reads them.
import { z } from 'zod';
import { keys } from './keys';
import { getItem, type TransactItem } from './table';

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

/** Counts a new local user; joins the registration transaction so the count cannot drift. */
export const countNewUser = (): TransactItem => ({
  Update: { Key: keys.instanceStats(), UpdateExpression: 'ADD userCount :one', ExpressionAttributeValues: { ':one': 1 } },
});
