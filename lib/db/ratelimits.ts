// Fixed-window request counters for the rate limits (lib/http/ratelimit.ts):
// one small item per (throttle, subject, window), counted with one atomic ADD
// and removed by TTL once its window is over.
import { z } from 'zod';
import { keys } from './keys';
import { updateItem } from './table';

const counterItem = z.object({ hits: z.number().int(), expiresAt: z.number() });

/**
 * Adds one hit to a window's counter and answers the count, this hit included.
 * One UpdateItem whatever the state: the first hit of a window creates the item.
 */
export async function countHit(throttle: string, subject: string, windowStart: number, expiresAt: number): Promise<number> {
  const counter = await updateItem(
    {
      Key: keys.rateCounter(throttle, subject, windowStart),
      UpdateExpression: 'ADD hits :one SET expiresAt = :expires',
      ExpressionAttributeValues: { ':one': 1, ':expires': expiresAt },
    },
    counterItem,
  );
  // No condition, so DynamoDB always answers the item.
  if (!counter) throw new Error('rate counter update answered no item');
  return counter.hits;
}
