// GET /api/v2/notifications (https://docs.joinmastodon.org/methods/grouped_notifications/#get-grouped):
// a page of notification groups with the accounts and statuses they name.
import { http, type Ctx } from '../../lib/http';
import { groupsFitting } from '../../lib/http/page';
import { raw } from '../../lib/http/reply';
import { log } from '../../lib/log';
import { groupedPage, groupedQuery, type GroupedQuery } from '../../lib/notifications/grouped';
import { linkHeader } from '../../lib/paging';
import { groupedResultsJson, renderNotificationGroups } from '../../lib/render/notification_group';

export async function run(input: GroupedQuery, ctx: Ctx<'user'>) {
  let page = await groupedPage(ctx.account, input);
  const render = () => renderNotificationGroups(page.groups, ctx.account, { paginated: true, expandAccounts: input.expand_accounts, supportedTypes: input.supported_types });
  let results = await render();
  // A page too large for the response (lib/http/limits.ts) is cut to the groups that fit, and rendered again.
  const fitting = groupsFitting(results, page.groups.map((g) => g.groupKey), page.ascending);
  if (fitting < page.groups.length) {
    log.info('page shortened by size', { path: ctx.path, read: page.groups.length, kept: fitting });
    page = page.cut(fitting);
    results = await render();
  }
  // The Link follows the standing notifications as read, so groups dropped from the body never stall paging.
  const link = linkHeader(ctx.path, ctx.query, page.edges);
  return raw(groupedResultsJson(results), 'application/json; charset=utf-8', 200, link ? { Link: link } : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: groupedQuery });
