// DELETE /api/v1/scheduled_statuses/:id (https://docs.joinmastodon.org/methods/scheduled_statuses/#cancel)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { cancelScheduled } from '../../lib/statuses/scheduled';

export const input = z.object({ id: z.string() });

/** Cancels it and frees its attachments for another status. */
export async function run(params: z.infer<typeof input>, ctx: Ctx<'user'>) {
  await cancelScheduled(ctx.account, params.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema: input });
