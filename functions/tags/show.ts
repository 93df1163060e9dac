// GET /api/v1/tags/:name (https://docs.joinmastodon.org/methods/tags/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { showTag } from '../../lib/tags/follows';

export const schema = z.object({ name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  return showTag(input.name, ctx.account);
}

// Public, as Mastodon's (no scope asked): a token only tells `following`; one that is sent must be valid.
export const handler = http(run, { auth: 'optional', scopes: [], schema });
