// Reading-position markers (https://docs.joinmastodon.org/entities/Marker/):
// one item per (account, timeline), under the account's marker partition.
import { z } from 'zod';
import * as keys from './keys';
import { getItem, nowIso, query, updateItem } from './table';

export const MARKER_TIMELINES = ['home', 'notifications'] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

export const markerItem = z.object({
  timeline: z.enum(MARKER_TIMELINES),
  lastReadId: z.string(),
  /** Mastodon's lock_version: 0 when created, +1 on every change. */
  version: z.number().int(),
  updatedAt: z.string(),
});
export type Marker = z.infer<typeof markerItem>;

/** All markers of an account: one Query of its (at most two-item) partition. */
export async function markersOf(accountId: string): Promise<Marker[]> {
  const page = await query(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.markerPartition(accountId) } },
    markerItem,
  );
  return page.items;
}

/**
 * Moves a marker, creating it at version 0; the version goes up by one in the
 * same atomic update, and only when the position changes (as ActiveRecord's
 * optimistic lock, which leaves unchanged records alone).
 */
export async function saveMarker(accountId: string, timeline: MarkerTimeline, lastReadId: string): Promise<Marker> {
  const key = keys.marker(accountId, timeline);
  const updated = await updateItem(
    {
      Key: key,
      UpdateExpression: 'SET #timeline = :timeline, lastReadId = :id, updatedAt = :now, version = if_not_exists(version, :start) + :one',
      ConditionExpression: 'attribute_not_exists(PK) OR lastReadId <> :id',
      ExpressionAttributeNames: { '#timeline': 'timeline' },
      ExpressionAttributeValues: { ':timeline': timeline, ':id': lastReadId, ':now': nowIso(), ':start': -1, ':one': 1 },
    },
    markerItem,
  );
  if (updated) return updated;
  // Unchanged position: the stored marker stands as it is.
  const current = await getItem(key, markerItem, true);
  if (!current) throw new Error('marker vanished between update and read');
  return current;
}
