// GET /api/v1/filters (https://docs.joinmastodon.org/methods/filters/#get-v1)
import { z } from 'zod';
import { listFilters, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await listFilters(ctx.account.id)).map(renderFilter);
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
