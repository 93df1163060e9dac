// GET /api/v1/accounts/:id/statuses (https://docs.joinmastodon.org/methods/accounts/#statuses)
import { accountStatuses, accountStatusesQuery, type AccountStatusesQuery } from '../../lib/graph/statuses';
import { http, type Ctx } from '../../lib/http';
import { timelineReply } from '../../lib/timelines/respond';

export async function run(input: AccountStatusesQuery, ctx: Ctx<'optional'>) {
  const page = await accountStatuses(input.id, ctx.account, input);
  return timelineReply(page, ctx.account, ctx.path, ctx.query);
}

// Public since 2.7.0; a token sent along must be valid and hold read:statuses.
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: accountStatusesQuery });
