// PUT /api/v1/admin/domain_blocks/:id (https://docs.joinmastodon.org/methods/admin/domain_blocks/#update)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { updateDomainBlock } from '../../lib/moderation/domain_blocks';
import { booleanish } from '../../lib/schema';
import { renderAdminDomainBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({
  id: z.string(),
  severity: z.unknown().optional(),
  reject_media: booleanish.optional(),
  reject_reports: booleanish.optional(),
  private_comment: z.unknown().optional(),
  public_comment: z.unknown().optional(),
  obfuscate: booleanish.optional(),
});

export async function run({ id, ...changes }: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminDomainBlock(await updateDomainBlock(ctx.account, id, changes));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:domain_blocks'], permission: 'manage_federation', schema });
