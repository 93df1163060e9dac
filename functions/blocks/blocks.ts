// GET /api/v1/blocks (https://docs.joinmastodon.org/methods/blocks/)
import { z } from 'zod';
import { blockedAccounts } from '../../lib/graph/blocks';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { pageQuery } from '../../lib/http/link';

export const blocksInput = pageQuery(40, 80);

export async function run(input: z.infer<typeof blocksInput>, ctx: Ctx<'user'>) {
  return accountsReply(await blockedAccounts(ctx.account, input), ctx);
}

export const handler = http(run, { auth: 'user', scopes: ['read:blocks', 'follow'], schema: blocksInput });
