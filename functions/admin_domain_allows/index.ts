// GET /api/v1/admin/domain_allows (https://docs.joinmastodon.org/methods/admin/domain_allows/#get)
import { z } from 'zod';
import { domainAllowsPage } from '../../lib/db/domain_allows';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminDomainAllow } from '../../lib/render/admin_blocks';

/** Mastodon's LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const allows = await domainAllowsPage(input);
  return pageReply(ctx, edgesOf(allows), allows.map(renderAdminDomainAllow));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:domain_allows'], permission: 'manage_federation', schema });
