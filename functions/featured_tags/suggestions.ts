// GET /api/v1/featured_tags/suggestions (https://docs.joinmastodon.org/methods/featured_tags/#suggestions)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { suggestedTags } from '../../lib/tags/featured';

export async function run(input: unknown, ctx: Ctx<'user'>) {
  return suggestedTags(ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema: z.object({}) });
