// DELETE /api/v1/scheduled_statuses/:id (https://docs.joinmastodon.org/methods/scheduled_statuses/#cancel)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { cancelScheduled } from '../../lib/statuses/scheduled';

export const schema = z.object({ id: z.string() });

/** Cancels it and frees its attachments for another status. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await cancelScheduled(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
