// GET /api/v2/filters/keywords/:id (https://docs.joinmastodon.org/methods/filters/#keywords-get-one): one keyword of a filter of the caller.
import { z } from 'zod';
import { renderFilterKeyword } from '../../lib/filters/entities';
import { keywordOf } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderFilterKeyword(await keywordOf(ctx.account.id, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
