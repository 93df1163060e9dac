// POST /api/v1/tags/:name/feature (https://docs.joinmastodon.org/methods/tags/#feature, Mastodon 4.4)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { featureTagOfPath } from '../../lib/tags/follows';

export const schema = z.object({ name: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return featureTagOfPath(ctx.account, input.name);
}

// The featured-tags scope, as POST /api/v1/featured_tags asks (Mastodon's TagsController for feature/unfeature).
export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
