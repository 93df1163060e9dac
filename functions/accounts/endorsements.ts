// GET /api/v1/accounts/:id/endorsements (Mastodon 4.4, https://docs.joinmastodon.org/methods/accounts/#endorsements):
// the accounts another account features on its profile, public as its profile is.
import { z } from 'zod';
import { endorsedAccounts } from '../../lib/graph/endorsements';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { visibleAccountById } from '../../lib/policy/accounts';
import { renderAccount } from '../../lib/render/account';
import { availableTo, unavailableTo } from '../../lib/policy/sanctions';

export const schema = pageQuery(40, 80).extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const account = await visibleAccountById(input.id);
  if (unavailableTo(account, ctx.account)) return [];
  const page = await endorsedAccounts(account.id, input);
  return pageReply(ctx, page, availableTo(page.accounts, ctx.account).map((a) => renderAccount(a)));
}

export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema });
