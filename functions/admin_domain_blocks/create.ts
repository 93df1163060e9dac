// POST /api/v1/admin/domain_blocks (https://docs.joinmastodon.org/methods/admin/domain_blocks/#create): 422 with the block already in force when one
// covers the domain (itself or a parent), as Mastodon answers.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { createDomainBlock } from '../../lib/moderation/domain_blocks';
import { booleanish } from '../../lib/schema';
import { renderAdminDomainBlock } from '../../lib/render/admin_blocks';

export const schema = z.object({
  domain: z.unknown().optional(),
  severity: z.unknown().optional(),
  reject_media: booleanish.optional(),
  reject_reports: booleanish.optional(),
  private_comment: z.unknown().optional(),
  public_comment: z.unknown().optional(),
  obfuscate: booleanish.optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminDomainBlock(await createDomainBlock(ctx.account, input, renderAdminDomainBlock));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:domain_blocks'], permission: 'manage_federation', schema });
