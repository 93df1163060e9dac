// DELETE /api/v2/filters/statuses/:id (https://docs.joinmastodon.org/methods/filters/#statuses-remove): removes a status from its filter.
import { z } from 'zod';
import { removeStatusFilter } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await removeStatusFilter(ctx.account.id, input.id);
  await publishFiltersChanged(ctx.account.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
