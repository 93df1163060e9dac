// GET /api/v1/accounts/search (https://docs.joinmastodon.org/methods/accounts/#search)
import { z } from 'zod';
import { searchAccounts } from '../../lib/graph/search';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { booleanish, intParam, text } from '../../lib/schema';
import { renderAccount } from '../../lib/render/account';

export const schema = z.object({
  q: text(2000).default(''),
  limit: limitParam(40, 80),
  offset: intParam.min(0).max(10000).default(0),
  /** WebFinger resolution of remote accounts: accepted, not done (no federation). */
  resolve: booleanish.default(false),
  following: booleanish.default(false),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const accounts = await searchAccounts(ctx.account, input);
  return accounts.map((a) => renderAccount(a));
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
