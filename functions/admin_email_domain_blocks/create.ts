// POST /api/v1/admin/email_domain_blocks (https://docs.joinmastodon.org/methods/admin/email_domain_blocks/#create): sign-ups from the domain and its
// subdomains refused (or, with allow_with_approval, held for approval); 422 naming the field for a bad or taken domain.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { blockEmailDomain, historyOf } from '../../lib/moderation/sign_up_blocks';
import { booleanish } from '../../lib/schema';
import { renderAdminEmailDomainBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ domain: z.unknown().optional(), allow_with_approval: booleanish.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const block = await blockEmailDomain(ctx.account, input);
  return renderAdminEmailDomainBlock(block, await historyOf(block));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:email_domain_blocks'], permission: 'manage_blocks', schema });
