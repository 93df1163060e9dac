// GET /api/v1/admin/ip_blocks (https://docs.joinmastodon.org/methods/admin/ip_blocks/#get)
import { z } from 'zod';
import { ipBlocksPage } from '../../lib/db/sign_up_blocks';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminIpBlock } from '../../lib/render/admin_blocks';

/** Mastodon's LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const blocks = await ipBlocksPage(input);
  return pageReply(ctx, edgesOf(blocks), blocks.map(renderAdminIpBlock));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:ip_blocks'], permission: 'manage_blocks', schema });
