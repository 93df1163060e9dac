// GET /api/v2/search (https://docs.joinmastodon.org/methods/search/#v2)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { fittingPrefix } from '../../lib/http/page';
import { PAGE_BODY_BUDGET_BYTES } from '../../lib/http/limits';
import { limitParam } from '../../lib/paging';
import { booleanish, idParam, intParam, text } from '../../lib/schema';
import { renderAccount } from '../../lib/render/account';
import { searchableBy } from '../../lib/policy/sanctions';
import { renderStatuses } from '../../lib/render/status';
import { renderSearchTags, searchHashtags, searchStatuses } from '../../lib/search';
import { searchAccounts } from '../../lib/search/accounts';
import { resolveQuery } from '../../lib/search/resolve';

export const schema = z.object({
  q: text(2000).default(''),
  type: z.enum(['accounts', 'hashtags', 'statuses']).optional(),
  limit: limitParam(20, 40),
  offset: intParam.min(0).max(10000).default(0),
  following: booleanish.default(false),
  account_id: idParam,
  max_id: idParam,
  min_id: idParam,
  /** Local tags have no review step: every tag counts as reviewed. */
  exclude_unreviewed: booleanish.default(false),
  /** Look up a remote account (`@user@domain`) or a profile or post URL on its server (WebFinger, a signed GET) and store it. */
  resolve: booleanish.default(false),
});

/** The found first, then the searched, each once, at most `limit`. */
const firstThen = <T extends { id: string }>(found: T[], searched: T[], limit: number): T[] =>
  [...new Map([...found, ...searched].map((x) => [x.id, x])).values()].slice(0, limit);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const wants = (type: 'accounts' | 'hashtags' | 'statuses') => input.q.trim() !== '' && (input.type === undefined || input.type === type);
  const page = { q: input.q, limit: input.limit, offset: input.offset };
  // A remote account or post the query names, on the first page only.
  const named = input.offset === 0 && (wants('accounts') || wants('statuses')) && input.limit > 0;
  const [resolved, accounts, statuses, hashtags] = await Promise.all([
    named ? resolveQuery(ctx.account, input.q, { resolve: input.resolve }) : { accounts: [], statuses: [] },
    wants('accounts') ? searchAccounts(ctx.account, { ...page, following: input.following }) : [],
    wants('statuses')
      ? searchStatuses(ctx.account, { ...page, accountId: input.account_id, maxId: input.max_id, minId: input.min_id })
      : [],
    wants('hashtags') ? searchHashtags(page) : [],
  ]);
  // `following` asks for accounts the searcher follows: the account a query names is left to the local search then.
  const namedAccounts = wants('accounts') && !input.following ? resolved.accounts : [];
  const namedStatuses = wants('statuses') ? resolved.statuses.filter((s) => !input.account_id || s.accountId === input.account_id) : [];
  // Held to the response's budget (lib/http/limits.ts): accounts within half, statuses within the rest.
  const accountsKept = fittingPrefix(firstThen(namedAccounts, await searchableBy(accounts, ctx.account, input.q), input.limit).map((a) => renderAccount(a)), PAGE_BODY_BUDGET_BYTES / 2);
  const tags = await renderSearchTags(hashtags);
  const used = Buffer.byteLength(JSON.stringify({ accounts: accountsKept, hashtags: tags })) * 2;
  const rendered = await renderStatuses(firstThen(namedStatuses, statuses, input.limit), ctx.account, { context: 'public', sanctions: 'search' });
  return { accounts: accountsKept, statuses: fittingPrefix(rendered, PAGE_BODY_BUDGET_BYTES - used - 64), hashtags: tags };
}

export const handler = http(run, { auth: 'user', scopes: ['read:search'], schema });
