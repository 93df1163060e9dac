// GET /api/v1/accounts/:id/followers (https://docs.joinmastodon.org/methods/accounts/#followers)
import { z } from 'zod';
import { visibleAccountById } from '../../lib/policy/accounts';
import { followersOf } from '../../lib/graph/followers_following';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';

export const schema = pageQuery(40, 80).extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const account = await visibleAccountById(input.id);
  const page = await followersOf(account, ctx.account?.id, input);
  return pageReply(ctx, page, page.accounts.map((a) => renderAccount(a)));
}

export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
