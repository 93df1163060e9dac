// GET /api/v1_alpha/async_refreshes/:id (https://docs.joinmastodon.org/methods/async_refreshes/): the state of
// background work a `Mastodon-Async-Refresh` header named (lib/db/async_refreshes.ts); 404 once it is gone.
import { z } from 'zod';
import { asyncRefreshById } from '../../lib/db/async_refreshes';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string().max(64) });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  const refresh = await asyncRefreshById(input.id);
  if (!refresh) throw notFound();
  return { async_refresh: { id: refresh.id, status: refresh.status, result_count: refresh.resultCount } };
}

export const handler = http(run, { auth: 'user', scopes: ['read'], schema });
