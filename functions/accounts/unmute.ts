// POST /api/v1/accounts/:id/unmute (https://docs.joinmastodon.org/methods/accounts/#unmute)
import { z } from 'zod';
import { unmute } from '../../lib/graph/blocks';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return unmute(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:mutes', 'follow'], schema });
