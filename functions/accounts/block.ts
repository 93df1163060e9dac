// POST /api/v1/accounts/:id/block (https://docs.joinmastodon.org/methods/accounts/#block)
import { z } from 'zod';
import { block } from '../../lib/graph/blocks';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return block(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:blocks', 'follow'], schema });
