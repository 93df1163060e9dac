// GET /api/v1/admin/domain_allows/:id (https://docs.joinmastodon.org/methods/admin/domain_allows/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { domainAllowOrNotFound } from '../../lib/moderation/domain_blocks';
import { renderAdminDomainAllow } from '../../lib/render/admin_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  return renderAdminDomainAllow(await domainAllowOrNotFound(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:domain_allows'], permission: 'manage_federation', schema });
