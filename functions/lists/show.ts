// GET /api/v1/lists/:id (https://docs.joinmastodon.org/methods/lists/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ownList } from '../../lib/lists';
import { renderList } from '../../lib/render/list';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderList(await ownList(ctx.account, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema });
