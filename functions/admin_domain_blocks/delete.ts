// DELETE /api/v1/admin/domain_blocks/:id (https://docs.joinmastodon.org/methods/admin/domain_blocks/#delete): `{}`, as Mastodon answers.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { liftDomainBlock } from '../../lib/moderation/domain_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await liftDomainBlock(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:domain_blocks'], permission: 'manage_federation', schema });
