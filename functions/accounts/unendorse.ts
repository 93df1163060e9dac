// POST /api/v1/accounts/:id/unendorse, and its Mastodon 4.3 name /unpin (https://docs.joinmastodon.org/methods/accounts/#unendorse)
import { z } from 'zod';
import { unendorse } from '../../lib/graph/endorsements';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return unendorse(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
