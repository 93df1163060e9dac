// POST /api/v1/accounts/:id/unblock (https://docs.joinmastodon.org/methods/accounts/#unblock)
import { z } from 'zod';
import { unblock } from '../../lib/graph/blocks';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return unblock(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:blocks', 'follow'], schema });
