// GET /api/v1/admin/tags (https://docs.joinmastodon.org/methods/admin/tags/#get): the tags used here, by id, as Admin::Tag.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { adminTagsPage } from '../../lib/moderation/trends';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminTagView } from '../../lib/render/admin_trends';

export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const tags = (await adminTagsPage(input)).map(renderAdminTagView);
  return pageReply(ctx, edgesOf(tags), tags);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'manage_taxonomies', schema });
