// PUT /api/v1/admin/ip_blocks/:id (https://docs.joinmastodon.org/methods/admin/ip_blocks/#update)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { updateIpRule } from '../../lib/moderation/sign_up_blocks';
import { intString } from '../../lib/schema';
import { renderAdminIpBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({
  id: z.string(),
  ip: z.unknown().optional(),
  severity: z.unknown().optional(),
  comment: z.unknown().optional(),
  /** Seconds from now; null or '' for never. */
  expires_in: z.preprocess((v) => (v === '' ? null : v), intString.nullable().optional()),
});

export async function run({ id, ...changes }: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminIpBlock(await updateIpRule(ctx.account, id, changes));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:ip_blocks'], permission: 'manage_blocks', schema });
