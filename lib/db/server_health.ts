// Delivery health of remote servers: consecutive failed deliveries per domain and,
// once a server has kept failing, until when it is skipped
// (lib/federation/deliver.ts decides when). A success deletes the item; an item
// nobody touches again expires by TTL.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, deleteItem, getItem, updateItem } from './table';

export const serverHealthItem = z.object({
  domain: z.string(),
  failures: z.number().int().default(0),
  firstFailureAt: z.string(),
  lastFailureAt: z.string(),
  unavailableUntil: z.string().nullable().default(null),
});
export type ServerHealth = z.infer<typeof serverHealthItem>;

/** A server that has not failed for this long is forgotten. */
const HEALTH_TTL_SECONDS = 30 * 24 * 3600;

export const serverHealthOf = (domain: string) => getItem(keys.serverHealth(domain), serverHealthItem);

/** Of `domains`, those marked unavailable past `now` (one batch read). */
export async function unavailableServers(domains: string[], now: Date): Promise<Set<string>> {
  const unique = [...new Set(domains.map((d) => d.toLowerCase()))];
  const found = await batchGet(unique.map((d) => keys.serverHealth(d)), serverHealthItem);
  const until = now.toISOString();
  return new Set([...found.values()].filter((h) => h.unavailableUntil !== null && h.unavailableUntil > until).map((h) => h.domain));
}

/** Counts one more consecutive failure (the first one's time kept); answers the new state. */
export async function recordDeliveryFailure(domain: string, at: Date): Promise<ServerHealth | undefined> {
  return updateItem(
    {
      Key: keys.serverHealth(domain),
      UpdateExpression: 'SET #domain = :domain, firstFailureAt = if_not_exists(firstFailureAt, :at), lastFailureAt = :at, expiresAt = :expires ADD failures :one',
      ExpressionAttributeNames: { '#domain': 'domain' },
      ExpressionAttributeValues: {
        ':domain': domain.toLowerCase(),
        ':at': at.toISOString(),
        ':one': 1,
        ':expires': Math.floor(at.getTime() / 1000) + HEALTH_TTL_SECONDS,
      },
    },
    serverHealthItem,
  );
}

/** Marks a server unavailable until `until` (its failure count stays, so the next failure after that marks it again). */
export async function markServerUnavailable(domain: string, until: Date): Promise<void> {
  await updateItem(
    {
      Key: keys.serverHealth(domain),
      UpdateExpression: 'SET unavailableUntil = :until',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':until': until.toISOString() },
    },
    serverHealthItem,
  );
}

/** A delivery succeeded: the server's failures are forgotten. */
export async function clearServerHealth(domain: string): Promise<void> {
  await deleteItem(keys.serverHealth(domain), serverHealthItem);
}

/** The health items of those of `domains` that have one (failing now or lately): one batch read. */
export async function serverHealthAmong(domains: string[]): Promise<ServerHealth[]> {
  const found = await batchGet([...new Set(domains.map((d) => d.toLowerCase()))].map((d) => keys.serverHealth(d)), serverHealthItem);
  return [...found.values()];
}
