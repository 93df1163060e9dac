// GET /api/v1/accounts/:id/lists (https://docs.joinmastodon.org/methods/accounts/#lists)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { listsContaining } from '../../lib/lists';
import { renderList } from '../../lib/render/list';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await listsContaining(ctx.account, input.id)).map(renderList);
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema });
