// GET /api/v1/notifications/requests (https://docs.joinmastodon.org/methods/notifications/#get-requests):
// the viewer's notification requests, newest first, paged by request id (40, at most 80).
import { requestsPage } from '../../lib/db/notification_requests';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery, type Page } from '../../lib/paging';
import { renderNotificationRequests } from '../../lib/render/notification_request';

export const schema = pageQuery(40, 80);

export async function run(input: Page, ctx: Ctx<'user'>) {
  const page = await requestsPage(ctx.account.id, input);
  // The Link follows the page as read, so requests left out of the body (sender gone) never stall paging.
  return pageReply(ctx, edgesOf(page), await renderNotificationRequests(page, ctx.account));
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema });
