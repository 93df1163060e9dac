// GET /api/v1/scheduled_statuses/:id (https://docs.joinmastodon.org/methods/scheduled_statuses/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { renderScheduledStatus } from '../../lib/render/scheduled_status';
import { ownScheduled } from '../../lib/statuses/scheduled';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: Ctx<'user'>) {
  return renderScheduledStatus(await ownScheduled(ctx.account, params.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema: input });
