// POST /api/v1/accounts/:id/endorse, and its Mastodon 4.3 name /pin (https://docs.joinmastodon.org/methods/accounts/#endorse)
import { z } from 'zod';
import { endorse } from '../../lib/graph/endorsements';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return endorse(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
