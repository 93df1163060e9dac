// POST /api/v1/markers (https://docs.joinmastodon.org/methods/markers/#create)
import { MARKER_TIMELINES, saveMarker } from '../../lib/db/markers';
import { http, type Ctx } from '../../lib/http';
import { renderMarkers, saveMarkersInput, type SaveMarkersInput } from '../../lib/markers';

export async function run(input: SaveMarkersInput, ctx: Ctx<'user'>) {
  const saved = await Promise.all(
    MARKER_TIMELINES.flatMap((timeline) => {
      const position = input[timeline];
      return position ? [saveMarker(ctx.account.id, timeline, position.last_read_id)] : [];
    }),
  );
  return renderMarkers(saved);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema: saveMarkersInput });
