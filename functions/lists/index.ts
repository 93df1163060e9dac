// GET /api/v1/lists (https://docs.joinmastodon.org/methods/lists/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { listsOfOwner } from '../../lib/lists';
import { renderList } from '../../lib/render/list';

export const schema = z.object({});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await listsOfOwner(ctx.account)).map(renderList);
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema });
