// GET /api/v1/admin/domain_blocks (https://docs.joinmastodon.org/methods/admin/domain_blocks/#get)
import { z } from 'zod';
import { instanceDomainBlocksPage } from '../../lib/db/instance_domain_blocks';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminDomainBlock } from '../../lib/render/admin_blocks';

/** Mastodon's LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const blocks = await instanceDomainBlocksPage(input);
  return pageReply(ctx, edgesOf(blocks), blocks.map(renderAdminDomainBlock));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:domain_blocks'], permission: 'manage_federation', schema });
