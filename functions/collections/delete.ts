// DELETE /api/v1/collections/:id (https://docs.joinmastodon.org/methods/collections/#delete_collection)
import { z } from 'zod';
import { deleteCollection } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await deleteCollection(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:collections'], schema });
