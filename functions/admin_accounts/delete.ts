// DELETE /api/v1/admin/accounts/:id (https://docs.joinmastodon.org/methods/admin/accounts/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { adminAccount, requestDeletion } from '../../lib/moderation/admin_accounts';
import { renderAdminAccount } from '../../lib/render/admin_account';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminAccount(await requestDeletion(ctx.account, await adminAccount(input.id)));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:accounts'], permission: 'delete_user_data', schema });
