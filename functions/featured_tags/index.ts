// GET /api/v1/featured_tags (https://docs.joinmastodon.org/methods/featured_tags/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { listFeaturedTags } from '../../lib/tags/featured';

export async function run(input: unknown, ctx: Ctx<'user'>) {
  return listFeaturedTags(ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema: z.object({}) });
