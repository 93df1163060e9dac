// POST /api/v1/follow_requests/:id/reject (https://docs.joinmastodon.org/methods/follow_requests/#reject)
import { z } from 'zod';
import { reject } from '../../lib/graph/follow_requests';
import { http, type Ctx } from '../../lib/http';

/** The requester's account id. */
export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return reject(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
