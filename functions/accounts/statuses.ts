// GET /api/v1/accounts/:id/statuses (https://docs.joinmastodon.org/methods/accounts/#statuses)
import { accountStatuses, accountStatusesQuery, type AccountStatusesQuery } from '../../lib/graph/account_statuses';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { renderStatuses } from '../../lib/render/status';

export async function run(input: AccountStatusesQuery, ctx: Ctx<'optional'>) {
  const page = await accountStatuses(input.id, ctx.account, input);
  return pageReply(ctx, page, await renderStatuses(page.statuses, ctx.account, { context: 'account' }), { keyOf: ownId });
}

// Public since 2.7.0; a token sent along must be valid and hold read:statuses.
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: accountStatusesQuery });
