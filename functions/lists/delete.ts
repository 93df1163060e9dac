// DELETE /api/v1/lists/:id (https://docs.joinmastodon.org/methods/lists/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { deleteList } from '../../lib/lists';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await deleteList(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:lists'], schema });
