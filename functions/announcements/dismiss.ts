// POST /api/v1/announcements/:id/dismiss (https://docs.joinmastodon.org/methods/announcements/#dismiss): marks a
// published announcement read for the user; dismissing it again is the same. Unknown or unpublished: 404.
import { z } from 'zod';
import { dismiss } from '../../lib/announcements';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await dismiss(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
