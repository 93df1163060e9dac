// DELETE /api/v1/admin/ip_blocks/:id (https://docs.joinmastodon.org/methods/admin/ip_blocks/#delete): `{}`, as Mastodon answers.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { deleteIpRule } from '../../lib/moderation/sign_up_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await deleteIpRule(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:ip_blocks'], permission: 'manage_blocks', schema });
