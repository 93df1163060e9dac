// POST /api/v1/featured_tags (https://docs.joinmastodon.org/methods/featured_tags/#feature)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { text } from '../../lib/schema';
import { featureTag } from '../../lib/tags/featured';

export const schema = z.object({ name: text(100) });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return featureTag(ctx.account, input.name);
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
