// POST /api/v1/admin/domain_allows (https://docs.joinmastodon.org/methods/admin/domain_allows/#create): the existing allow when the domain has one, as
// Mastodon answers; allowed in any mode (limited federation mode is what makes allows count).
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { allowDomain } from '../../lib/moderation/domain_blocks';
import { renderAdminDomainAllow } from '../../lib/render/admin_blocks';

export const schema = z.object({ domain: z.unknown().optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminDomainAllow(await allowDomain(ctx.account, input));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:domain_allows'], permission: 'manage_federation', schema });
