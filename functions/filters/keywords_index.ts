// GET /api/v2/filters/:id/keywords (https://docs.joinmastodon.org/methods/filters/#keywords-get): the keywords of one filter of the caller.
import { z } from 'zod';
import { renderFilterKeyword } from '../../lib/filters/entities';
import { filterV2 } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

/** `id` is the filter's (API Gateway wants one name per path position: /api/v2/filters/{id}/...). */
export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await filterV2(ctx.account.id, input.id)).keywords.map(renderFilterKeyword);
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
