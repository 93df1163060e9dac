// GET /api/v1/domain_blocks (https://docs.joinmastodon.org/methods/domain_blocks/#get)
import { z } from 'zod';
import { blockedDomains } from '../../lib/graph/domain_blocks';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';

/** Mastodon's BLOCK_LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await blockedDomains(ctx.account, input);
  return pageReply(ctx, page, page.domains);
}

export const handler = http(run, { auth: 'user', scopes: ['read:blocks', 'follow'], schema });
