// DELETE /api/v1/filters/:id (https://docs.joinmastodon.org/methods/filters/#delete-v1)
import { z } from 'zod';
import { removeFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await removeFilter(ctx.account.id, input.id);
  await publishFiltersChanged(ctx.account.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
