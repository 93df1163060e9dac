// GET /api/v1/mutes (https://docs.joinmastodon.org/methods/mutes/)
import { z } from 'zod';
import { mutedAccounts } from '../../lib/graph/blocks';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { pageQuery } from '../../lib/http/link';

export const mutesInput = pageQuery(40, 80);

export async function run(input: z.infer<typeof mutesInput>, ctx: Ctx<'user'>) {
  return accountsReply(await mutedAccounts(ctx.account, input), ctx);
}

export const handler = http(run, { auth: 'user', scopes: ['read:mutes', 'follow'], schema: mutesInput });
