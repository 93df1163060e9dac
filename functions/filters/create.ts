// POST /api/v1/filters (https://docs.joinmastodon.org/methods/filters/#create-v1)
import type { z } from 'zod';
import { addFilter, filterFields, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export async function run(input: z.infer<typeof filterFields>, ctx: Ctx<'user'>) {
  const filter = await addFilter(ctx.account.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilter(filter);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema: filterFields });
