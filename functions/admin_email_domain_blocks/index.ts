// GET /api/v1/admin/email_domain_blocks (https://docs.joinmastodon.org/methods/admin/email_domain_blocks/#get)
import { z } from 'zod';
import { emailDomainBlocksPage } from '../../lib/db/sign_up_blocks';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { withHistories } from '../../lib/moderation/sign_up_blocks';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAdminEmailDomainBlock } from '../../lib/render/admin_blocks';

/** Mastodon's LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const blocks = await emailDomainBlocksPage(input);
  const rendered = (await withHistories(blocks)).map(([block, days]) => renderAdminEmailDomainBlock(block, days));
  return pageReply(ctx, edgesOf(blocks), rendered);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:email_domain_blocks'], permission: 'manage_blocks', schema });
