// DELETE /api/v1/announcements/:id/reactions/:name
// (https://docs.joinmastodon.org/methods/announcements/#delete-reactions): takes the user's reaction back.
// A reaction the user did not make, or an unknown or unpublished announcement: 404.
import { z } from 'zod';
import { unreact } from '../../lib/announcements';
import { http, type Ctx } from '../../lib/http';
import { publishAnnouncementReaction } from '../../lib/announcements/streaming';

export const schema = z.object({ id: z.string(), name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await unreact(ctx.account, input.id, input.name);
  await publishAnnouncementReaction(input.id, input.name);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:favourites'], schema });
