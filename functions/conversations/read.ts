// POST /api/v1/conversations/:id/read (https://docs.joinmastodon.org/methods/conversations/#read)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { markConversationRead } from '../../lib/conversations';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return markConversationRead(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:conversations'], schema });
