// POST /api/v1/admin/accounts/:id/unsilence (https://docs.joinmastodon.org/methods/admin/accounts/#unsilence)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { adminAccount, liftSanction } from '../../lib/moderation/admin_accounts';
import { renderAdminAccount } from '../../lib/render/admin_account';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminAccount(await liftSanction(ctx.account, await adminAccount(input.id), 'unsilence'));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:accounts'], permission: 'manage_users', schema });
