// GET /api/v1/announcements (https://docs.joinmastodon.org/methods/announcements/#get): the operator's published
// announcements that have not ended, oldest first, each with `read` and its reactions' `me` for the user. Any
// user token will do, as in Mastodon (which asks for no scope here). `with_dismissed=false` leaves out the
// dismissed ones (Mastodon 3.1's parameter; by default, as Mastodon 4, every one is listed).
import { z } from 'zod';
import { announcementsFor } from '../../lib/announcements';
import { http, type Ctx } from '../../lib/http';
import { renderAnnouncement } from '../../lib/render/announcement';
import { booleanish } from '../../lib/schema';

export const schema = z.object({ with_dismissed: booleanish.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { announcements, marks, emojis } = await announcementsFor(ctx.account, { withDismissed: input.with_dismissed });
  return announcements.map((a) => renderAnnouncement(a, { marks }, emojis));
}

export const handler = http(run, { auth: 'user', schema });
