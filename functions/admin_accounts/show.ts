// GET /api/v1/admin/accounts/:id (https://docs.joinmastodon.org/methods/admin/accounts/#get-one)
import { z } from 'zod';
import { http } from '../../lib/http';
import { adminAccount } from '../../lib/moderation/admin_accounts';
import { renderAdminAccount } from '../../lib/render/admin_account';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>) {
  return renderAdminAccount(await adminAccount(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:accounts'], permission: 'manage_users', schema });
