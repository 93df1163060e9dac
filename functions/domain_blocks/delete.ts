// DELETE /api/v1/domain_blocks (https://docs.joinmastodon.org/methods/domain_blocks/#unblock)
import { z } from 'zod';
import { domainParam, unblockDomain } from '../../lib/graph/domain_blocks';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ domain: domainParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await unblockDomain(ctx.account, input.domain);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:blocks', 'follow'], schema });
