// GET /api/v1/admin/trends/links/publishers (Mastodon 4.3's Admin::Trends::Links::PreviewCardProvidersController#index):
// the hosts of trending links, by id, with their review.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery } from '../../lib/paging';
import { publishersPage } from '../../lib/db/trends';
import { renderPublisher } from '../../lib/render/admin_trends';

export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const publishers = await publishersPage(input);
  return pageReply(ctx, edgesOf(publishers), publishers.map(renderPublisher));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'manage_taxonomies', schema });
