// POST /api/v1/accounts/:id/remove_from_followers (https://docs.joinmastodon.org/methods/accounts/#remove_from_followers)
import { z } from 'zod';
import { removeFromFollowers } from '../../lib/graph/remove_follower';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return removeFromFollowers(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
