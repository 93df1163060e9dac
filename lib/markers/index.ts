// Markers: the query and body schemas of /api/v1/markers and the Marker entity.
import { z } from 'zod';
import { MARKER_TIMELINES, type Marker, type MarkerTimeline } from '../db/markers';
import { id, oneOrMany } from '../schema';

const timelineList = oneOrMany(
  z.array(z.string({ invalid_type_error: 'must be a string' }).max(64, 'is too long (maximum is 64 characters)'), { invalid_type_error: 'must be a list' }).max(16, 'has too many entries'),
).default([]);

export const markersQuery = z.object({ timeline: timelineList });
export type MarkersQuery = z.infer<typeof markersQuery>;

/** Only these timelines have markers; others asked for are ignored, as Mastodon. */
export const knownTimelines = (names: string[]): MarkerTimeline[] =>
  MARKER_TIMELINES.filter((t) => names.includes(t));

const lastReadId = z.union(
  [id, z.number().int().nonnegative().safe().transform(String)],
  { errorMap: () => ({ message: 'must be an id' }) },
);
const position = z.object({ last_read_id: lastReadId }, { invalid_type_error: 'must be an object' });

export const saveMarkersInput = z.object({ home: position.optional(), notifications: position.optional() });
export type SaveMarkersInput = z.infer<typeof saveMarkersInput>;

export const renderMarker = (marker: Marker) => ({
  last_read_id: marker.lastReadId,
  version: marker.version,
  updated_at: marker.updatedAt,
});

export const renderMarkers = (markers: Marker[]) => Object.fromEntries(markers.map((m) => [m.timeline, renderMarker(m)]));
