// POST /api/v1/accounts/:id/unfollow (https://docs.joinmastodon.org/methods/accounts/#unfollow)
import { z } from 'zod';
import { unfollow } from '../../lib/graph/follow';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return unfollow(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
