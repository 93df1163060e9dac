// GET /api/v1/admin/trends/links (https://docs.joinmastodon.org/methods/admin/trends/#links): every trending link,
// reviewed or not, with `requires_review`; to staff without manage_taxonomies, the public list (as Mastodon).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { offsetPageReply } from '../../lib/http/offset_page';
import { limitParam } from '../../lib/paging';
import { offsetParam } from '../../lib/paging/offset';
import { can } from '../../lib/policy/roles';
import { renderAdminTrendLink } from '../../lib/render/admin_trends';
import { renderTrendingLink } from '../../lib/render/trends';
import { linksForReview, trendingLinks } from '../../lib/trends';

export const schema = z.object({ limit: limitParam(10, 20), offset: offsetParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  if (!can(ctx.account, 'manage_taxonomies')) {
    const { links, more } = await trendingLinks(input);
    return offsetPageReply(ctx, { ...input, more }, links.map(renderTrendingLink));
  }
  const { links, more } = await linksForReview(input);
  return offsetPageReply(ctx, { ...input, more }, links.map(renderAdminTrendLink));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], schema });
