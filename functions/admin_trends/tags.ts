// GET /api/v1/admin/trends/tags (https://docs.joinmastodon.org/methods/admin/trends/#tags): every trending tag as
// Admin::Tag, reviewed or not; to staff without manage_taxonomies, the public list (as Mastodon).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { tagsForReview } from '../../lib/moderation/trends';
import { can } from '../../lib/policy/roles';
import { renderAdminTagView } from '../../lib/render/admin_trends';
import { trendingTags } from '../../lib/tags/trends';

export const schema = z.object({ limit: limitParam(10, 20) });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  if (!can(ctx.account, 'manage_taxonomies')) return trendingTags(input.limit);
  return (await tagsForReview(input.limit)).map(renderAdminTagView);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], schema });
