// GET /api/v1/admin/domain_blocks/:id (https://docs.joinmastodon.org/methods/admin/domain_blocks/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { domainBlockOrNotFound } from '../../lib/moderation/domain_blocks';
import { renderAdminDomainBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  return renderAdminDomainBlock(await domainBlockOrNotFound(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:domain_blocks'], permission: 'manage_federation', schema });
