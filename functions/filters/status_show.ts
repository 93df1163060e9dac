// GET /api/v2/filters/statuses/:id (https://docs.joinmastodon.org/methods/filters/#statuses-get-one): one status filter of the caller.
import { z } from 'zod';
import { renderFilterStatus } from '../../lib/filters/entities';
import { statusFilterOf } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderFilterStatus(await statusFilterOf(ctx.account.id, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
