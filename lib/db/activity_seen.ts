// Inbound activities processed at most once (lib/federation/inbox.ts): one marker
// per activity id, `processing` while a worker holds it and `done` once its
// effects are committed, kept for a week by TTL. The marker is claimed before the
// work and marked done after it, so a redelivery of a finished activity finds
// `done` and writes nothing, and a worker that died half-way leaves a claim that
// goes stale and is taken over by the redelivery, which finishes the work.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, expiresIn, getItem, updateItem } from './table';

/** How long an activity id is remembered: peers retry deliveries for hours to a few days. */
export const ACTIVITY_SEEN_SECONDS = 7 * 24 * 3600;

const seenItem = z.object({ state: z.enum(['processing', 'done']), claimedAt: z.number(), claimant: z.string(), expiresAt: z.number() });

/** A claim held: `claimant` tells this worker's claim from a later one that took it over. */
export type ActivityClaim = { claimed: true; claimant: string } | { claimed: false; state: 'done' | 'processing' };

/**
 * Claims an activity id for processing: free, a claim older than `staleMs` (its worker died), or a marker
 * whose TTL has passed (TTL deletion is lazy). Otherwise answers what holds it.
 */
export async function claimActivity(activityId: string, staleMs: number, now = Date.now()): Promise<ActivityClaim> {
  const claimant = randomUUID();
  const taken = await updateItem(
    {
      Key: keys.activitySeen(activityId),
      UpdateExpression: 'SET #state = :processing, claimedAt = :now, claimant = :me, expiresAt = :exp',
      ConditionExpression: 'attribute_not_exists(PK) OR (#state = :processing AND claimedAt < :stale) OR expiresAt < :nowS',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':processing': 'processing',
        ':now': now,
        ':me': claimant,
        ':stale': now - staleMs,
        ':exp': expiresIn(ACTIVITY_SEEN_SECONDS),
        ':nowS': Math.floor(now / 1000),
      },
    },
    seenItem,
  );
  if (taken) return { claimed: true, claimant };
  const held = await getItem(keys.activitySeen(activityId), seenItem, true);
  return { claimed: false, state: held?.state ?? 'processing' };
}

/** The activity's effects are committed: every later delivery of it is a replay. */
export async function markActivityDone(activityId: string, claimant: string): Promise<void> {
  await updateItem(
    {
      Key: keys.activitySeen(activityId),
      UpdateExpression: 'SET #state = :done',
      ConditionExpression: 'claimant = :mine',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ':mine': claimant },
    },
    seenItem,
  );
}

/** Gives a claim back after a failure, so the retry need not wait for it to go stale; only the claimant's own. */
export async function releaseActivity(activityId: string, claimant: string): Promise<void> {
  await deleteItem(keys.activitySeen(activityId), seenItem, {
    ConditionExpression: '#state = :processing AND claimant = :mine',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':processing': 'processing', ':mine': claimant },
  });
}
