// GET /api/v2/filters (https://docs.joinmastodon.org/methods/filters/#get): every filter of the caller, with its keywords and statuses.
import { z } from 'zod';
import { renderFilterV2 } from '../../lib/filters/entities';
import { filtersV2Of } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({});

export async function run(_input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await filtersV2Of(ctx.account.id)).map((f) => renderFilterV2(f));
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
