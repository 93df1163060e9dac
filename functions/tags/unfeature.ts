// POST /api/v1/tags/:name/unfeature (https://docs.joinmastodon.org/methods/tags/#unfeature, Mastodon 4.4)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unfeatureTagOfPath } from '../../lib/tags/follows';

export const schema = z.object({ name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return unfeatureTagOfPath(ctx.account, input.name);
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
