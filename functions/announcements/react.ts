// PUT /api/v1/announcements/:id/reactions/:name (https://docs.joinmastodon.org/methods/announcements/#put-reactions):
// reacts with a unicode emoji or one of our custom emoji's shortcode, counted once per account (again: no change).
// A name that is no emoji, or a ninth different one: 422. Unknown or unpublished announcement: 404.
import { z } from 'zod';
import { react } from '../../lib/announcements';
import { http, type Ctx } from '../../lib/http';
import { publishAnnouncementReaction } from '../../lib/announcements/streaming';

export const schema = z.object({ id: z.string(), name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { announcement, added } = await react(ctx.account, input.id, input.name);
  if (added) await publishAnnouncementReaction(announcement.id, input.name);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:favourites'], schema });
