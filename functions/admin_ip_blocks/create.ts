// POST /api/v1/admin/ip_blocks (https://docs.joinmastodon.org/methods/admin/ip_blocks/#create): an IPv4 or IPv6 address or range (stored masked, as
// `192.0.2.0/24`), its severity, comment and expiry; 422 naming the field for a bad or taken range or severity.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { createIpRule } from '../../lib/moderation/sign_up_blocks';
import { intString } from '../../lib/schema';
import { renderAdminIpBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({
  ip: z.unknown().optional(),
  severity: z.unknown().optional(),
  comment: z.unknown().optional(),
  /** Seconds from now; null or '' for never. */
  expires_in: z.preprocess((v) => (v === '' ? null : v), intString.nullable().optional()),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminIpBlock(await createIpRule(ctx.account, input));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:ip_blocks'], permission: 'manage_blocks', schema });
