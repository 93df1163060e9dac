// GET /api/v1/blocks (https://docs.joinmastodon.org/methods/blocks/)
import { z } from 'zod';
import { blockedAccounts } from '../../lib/graph/blocks';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';

export const schema = pageQuery(40, 80);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await blockedAccounts(ctx.account, input);
  return pageReply(ctx, page, page.accounts.map((a) => renderAccount(a)));
}

export const handler = http(run, { auth: 'user', scopes: ['read:blocks', 'follow'], schema });
