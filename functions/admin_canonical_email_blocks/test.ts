// POST /api/v1/admin/canonical_email_blocks/test (https://docs.joinmastodon.org/methods/admin/canonical_email_blocks/#test): the blocks matching the
// address's canonical form (lower-case, dots and +suffix removed from the local part), as an array.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { canonicalEmailBlocksMatching } from '../../lib/moderation/sign_up_blocks';
import { renderAdminCanonicalEmailBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ email: z.unknown().optional() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  return (await canonicalEmailBlocksMatching(input.email)).map(renderAdminCanonicalEmailBlock);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:canonical_email_blocks'], permission: 'manage_blocks', schema });
