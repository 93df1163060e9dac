// GET /api/v1/markers (https://docs.joinmastodon.org/methods/markers/#get)
import { markersOf } from '../../lib/db/markers';
import { http, type Ctx } from '../../lib/http';
import { knownTimelines, markersQuery, renderMarkers, type MarkersQuery } from '../../lib/markers';

export async function run(input: MarkersQuery, ctx: Ctx<'user'>) {
  const wanted = knownTimelines(input.timeline);
  if (wanted.length === 0) return {};
  const markers = await markersOf(ctx.account.id);
  return renderMarkers(markers.filter((m) => wanted.includes(m.timeline)));
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema: markersQuery });
