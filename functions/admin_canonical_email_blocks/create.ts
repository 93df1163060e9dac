// POST /api/v1/admin/canonical_email_blocks (https://docs.joinmastodon.org/methods/admin/canonical_email_blocks/#create): by `email` (canonicalized and
// hashed; `canonical_email_hash` then ignored) or by `canonical_email_hash`; 422 naming the field when bad or taken.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { blockCanonicalEmail } from '../../lib/moderation/sign_up_blocks';
import { renderAdminCanonicalEmailBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ email: z.unknown().optional(), canonical_email_hash: z.unknown().optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminCanonicalEmailBlock(await blockCanonicalEmail(ctx.account, input));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:canonical_email_blocks'], permission: 'manage_blocks', schema });
