// POST /api/v1/admin/accounts/:id/approve (https://docs.joinmastodon.org/methods/admin/accounts/#approve)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { adminAccount, approveSignUp } from '../../lib/moderation/admin_accounts';
import { renderAdminAccount } from '../../lib/render/admin_account';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminAccount(await approveSignUp(ctx.account, await adminAccount(input.id)));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:accounts'], permission: 'manage_users', schema });
