// DELETE /api/v1/admin/canonical_email_blocks/:id (https://docs.joinmastodon.org/methods/admin/canonical_email_blocks/#delete): `{}`, as Mastodon answers.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unblockCanonicalEmail } from '../../lib/moderation/sign_up_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await unblockCanonicalEmail(ctx.account, input.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:canonical_email_blocks'], permission: 'manage_blocks', schema });
