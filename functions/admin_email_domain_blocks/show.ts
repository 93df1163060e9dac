// GET /api/v1/admin/email_domain_blocks/:id (https://docs.joinmastodon.org/methods/admin/email_domain_blocks/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { emailDomainBlockOrNotFound, historyOf } from '../../lib/moderation/sign_up_blocks';
import { renderAdminEmailDomainBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  const block = await emailDomainBlockOrNotFound(input.id);
  return renderAdminEmailDomainBlock(block, await historyOf(block));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:email_domain_blocks'], permission: 'manage_blocks', schema });
