// GET /api/v1/admin/trends/statuses (https://docs.joinmastodon.org/methods/admin/trends/#statuses): every trending
// status, reviewed or not, with `requires_review`; to staff without manage_taxonomies, the public list (as Mastodon).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { offsetPageReply } from '../../lib/http/offset_page';
import { limitParam } from '../../lib/paging';
import { offsetParam } from '../../lib/paging/offset';
import { can } from '../../lib/policy/roles';
import { renderAdminTrendStatuses } from '../../lib/render/admin_trends';
import { renderStatuses } from '../../lib/render/status';
import { statusesForReview, trendingStatuses } from '../../lib/trends';

export const schema = z.object({ limit: limitParam(20, 40), offset: offsetParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  if (!can(ctx.account, 'manage_taxonomies')) {
    const { statuses, more } = await trendingStatuses(ctx.account, input);
    return offsetPageReply(ctx, { ...input, more }, await renderStatuses(statuses, ctx.account, { context: 'public' }));
  }
  const { statuses, more } = await statusesForReview(input);
  return offsetPageReply(ctx, { ...input, more }, await renderAdminTrendStatuses(statuses, ctx.account));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], schema });
