// DELETE /api/v1/conversations/:id (https://docs.joinmastodon.org/methods/conversations/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { deleteConversation } from '../../lib/conversations';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await deleteConversation(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:conversations'], schema });
