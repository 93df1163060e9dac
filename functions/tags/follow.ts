// POST /api/v1/tags/:name/follow (https://docs.joinmastodon.org/methods/tags/#follow)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { followTag } from '../../lib/tags/follows';

export const schema = z.object({ name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return followTag(ctx.account, input.name);
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
