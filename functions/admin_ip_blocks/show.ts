// GET /api/v1/admin/ip_blocks/:id (https://docs.joinmastodon.org/methods/admin/ip_blocks/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ipBlockOrNotFound } from '../../lib/moderation/sign_up_blocks';
import { renderAdminIpBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  return renderAdminIpBlock(await ipBlockOrNotFound(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:ip_blocks'], permission: 'manage_blocks', schema });
