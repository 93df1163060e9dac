// GET /api/v1/scheduled_statuses/:id (https://docs.joinmastodon.org/methods/scheduled_statuses/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { renderScheduledStatus } from '../../lib/render/scheduled_status';
import { ownScheduled } from '../../lib/statuses/scheduled';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderScheduledStatus(await ownScheduled(ctx.account, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
