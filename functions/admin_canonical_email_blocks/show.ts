// GET /api/v1/admin/canonical_email_blocks/:id (https://docs.joinmastodon.org/methods/admin/canonical_email_blocks/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { canonicalEmailBlockOrNotFound } from '../../lib/moderation/sign_up_blocks';
import { renderAdminCanonicalEmailBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, _ctx: Ctx<'user'>) {
  return renderAdminCanonicalEmailBlock(await canonicalEmailBlockOrNotFound(input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:canonical_email_blocks'], permission: 'manage_blocks', schema });
