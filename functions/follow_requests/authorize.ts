// POST /api/v1/follow_requests/:id/authorize (https://docs.joinmastodon.org/methods/follow_requests/#authorize)
import { z } from 'zod';
import { authorize } from '../../lib/graph/follow_requests';
import { http, type Ctx } from '../../lib/http';

/** The requester's account id. */
export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return authorize(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
