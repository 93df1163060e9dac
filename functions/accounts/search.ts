// GET /api/v1/accounts/search (https://docs.joinmastodon.org/methods/accounts/#search)
import { z } from 'zod';
import { searchAccounts } from '../../lib/graph/search';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { booleanish, intParam, text } from '../../lib/schema';
import { renderAccount } from '../../lib/render/account';
import { searchableBy } from '../../lib/policy/sanctions';
import { remoteAcctOf, resolveQuery } from '../../lib/search/resolve';

export const schema = z.object({
  q: text(2000).default(''),
  limit: limitParam(40, 80),
  offset: intParam.min(0).max(10000).default(0),
  /** Look up `@user@domain` on its server (WebFinger) when it is not known here. */
  resolve: booleanish.default(false),
  following: booleanish.default(false),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  // A remote account the query names (`@user@domain`) comes first (first page, unless only followed accounts are asked for).
  const named = input.offset === 0 && !input.following && input.limit > 0 && remoteAcctOf(input.q) !== undefined;
  const [resolved, accounts] = await Promise.all([
    named ? resolveQuery(ctx.account, input.q, { resolve: input.resolve }) : { accounts: [] },
    searchAccounts(ctx.account, input),
  ]);
  // The account named exactly is answered whatever its state (shown suspended, as lookup shows it); the others only if the viewer may find them.
  const all = [...new Map([...resolved.accounts, ...(await searchableBy(accounts, ctx.account, input.q))].map((a) => [a.id, a])).values()].slice(0, input.limit);
  return all.map((a) => renderAccount(a));
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
