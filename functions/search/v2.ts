// GET /api/v2/search (https://docs.joinmastodon.org/methods/search/#v2)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { booleanish, idParam, intParam, text } from '../../lib/schema';
import { renderAccount } from '../../lib/render/account';
import { renderStatuses } from '../../lib/render/status';
import { renderSearchTags, searchHashtags, searchStatuses } from '../../lib/search';
import { searchAccounts } from '../../lib/search/accounts';

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
  /** WebFinger resolution of remote accounts and URLs: answered from local data only (no federation). */
  resolve: booleanish.default(false),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const wants = (type: 'accounts' | 'hashtags' | 'statuses') => input.q.trim() !== '' && (input.type === undefined || input.type === type);
  const page = { q: input.q, limit: input.limit, offset: input.offset };
  const [accounts, statuses, hashtags] = await Promise.all([
    wants('accounts') ? searchAccounts(ctx.account, { ...page, following: input.following }) : [],
    wants('statuses')
      ? searchStatuses(ctx.account, { ...page, accountId: input.account_id, maxId: input.max_id, minId: input.min_id })
      : [],
    wants('hashtags') ? searchHashtags(page) : [],
  ]);
  return {
    accounts: accounts.map((a) => renderAccount(a)),
    statuses: await renderStatuses(statuses, ctx.account),
    hashtags: await renderSearchTags(hashtags),
  };
}

export const handler = http(run, { auth: 'user', scopes: ['read:search'], schema });
