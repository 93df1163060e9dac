// Fixed-window request counters for the rate limits (lib/http/ratelimit.ts):
// one small item per (throttle, subject, window), counted with atomic ADDs
// and removed by TTL once its window is over.
import { z } from 'zod';
import * as keys from './keys';
import { updateItem } from './table';

const counterItem = z.object({ hits: z.number().int(), expiresAt: z.number() });

/**
 * Adds `hits` (one, or those an instance counted since it last wrote: lib/http/rate_tally.ts) to a
 * window's counter and answers the count, these included. One UpdateItem whatever the state: the
 * first hit of a window creates the item.
 */
export async function countHit(throttle: string, subject: string, windowStart: number, expiresAt: number, hits = 1): Promise<number> {
  const counter = await updateItem(
    {
      Key: keys.rateCounter(throttle, subject, windowStart),
      UpdateExpression: 'ADD hits :hits SET expiresAt = :expires',
      ExpressionAttributeValues: { ':hits': hits, ':expires': expiresAt },
    },
    counterItem,
  );
  // No condition, so DynamoDB always answers the item.
  if (!counter) throw new Error('rate counter update answered no item');
  return counter.hits;
}
