// DELETE /api/v1/featured_tags/:id (https://docs.joinmastodon.org/methods/featured_tags/#unfeature)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unfeatureTag } from '../../lib/tags/featured';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await unfeatureTag(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
