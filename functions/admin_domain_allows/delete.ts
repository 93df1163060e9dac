// DELETE /api/v1/admin/domain_allows/:id (https://docs.joinmastodon.org/methods/admin/domain_allows/#delete): `{}`, as Mastodon's controller answers.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { disallowDomain } from '../../lib/moderation/domain_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await disallowDomain(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:domain_allows'], permission: 'manage_federation', schema });
