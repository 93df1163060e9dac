// GET /api/v1/domain_blocks/preview (Mastodon 4.4, Api::V1::DomainBlocks::PreviewsController): what blocking
// `domain` would sever for the caller, before it blocks it.
import { z } from 'zod';
import { domainParam } from '../../lib/graph/domain_blocks';
import { previewDomainBlock } from '../../lib/graph/domain_block_preview';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ domain: domainParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return previewDomainBlock(ctx.account, input.domain);
}

// Mastodon asks the blocking scopes of the block itself, though this only reads.
export const handler = http(run, { auth: 'user', scopes: ['write:blocks', 'follow'], schema });
