// GET /api/v2/filters/:id/statuses (https://docs.joinmastodon.org/methods/filters/#statuses-get): the statuses one filter of the caller names.
import { z } from 'zod';
import { renderFilterStatus } from '../../lib/filters/entities';
import { filterV2 } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

/** `id` is the filter's. */
export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await filterV2(ctx.account.id, input.id)).statuses.map(renderFilterStatus);
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
