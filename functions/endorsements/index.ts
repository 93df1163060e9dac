// GET /api/v1/endorsements (https://docs.joinmastodon.org/methods/endorsements/#get)
import type { z } from 'zod';
import { endorsedAccounts } from '../../lib/graph/endorsements';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';
import { availableTo } from '../../lib/policy/sanctions';

export const schema = pageQuery(40, 80);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await endorsedAccounts(ctx.account.id, input);
  return pageReply(ctx, page, availableTo(page.accounts, ctx.account).map((a) => renderAccount(a)));
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
