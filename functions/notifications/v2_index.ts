// GET /api/v2/notifications (https://docs.joinmastodon.org/methods/grouped_notifications/#get-grouped):
// a page of notification groups with the accounts and statuses they name.
import { http, type Ctx } from '../../lib/http';
import { raw } from '../../lib/http/reply';
import { groupedPage, groupedQuery, type GroupedQuery } from '../../lib/notifications/grouped';
import { linkHeader } from '../../lib/paging';
import { groupedResultsJson, renderNotificationGroups } from '../../lib/render/notification_group';

export async function run(input: GroupedQuery, ctx: Ctx<'user'>) {
  const page = await groupedPage(ctx.account, input);
  const results = await renderNotificationGroups(page.groups, ctx.account, { paginated: true, expandAccounts: input.expand_accounts });
  // The Link follows the standing notifications as read, so groups dropped from the body never stall paging.
  const link = linkHeader(ctx.path, ctx.query, page.edges);
  return raw(groupedResultsJson(results), 'application/json; charset=utf-8', 200, link ? { Link: link } : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: groupedQuery });
