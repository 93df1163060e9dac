// GET /api/v1/notifications (https://docs.joinmastodon.org/methods/notifications/#get)
import { notificationsPage } from '../../lib/db/notifications';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { linkQuery, notificationsQuery, requestedTypes, type NotificationsQuery } from '../../lib/notifications/query';
import { edgesOf } from '../../lib/paging';
import { visibleNotifications } from '../../lib/policy';
import { renderNotifications } from '../../lib/render/notification';

export async function run(input: NotificationsQuery, ctx: Ctx<'user'>) {
  const page = await notificationsPage(ctx.account.id, input, { types: requestedTypes(input), fromAccountId: input.account_id });
  // Blocks, notification mutes and irreversible `notifications` filters hide on read too (filters added later included).
  const shown = await visibleNotifications(ctx.account, page);
  const body = await renderNotifications(shown, ctx.account, { supportedTypes: input.supported_types });
  // The Link follows the page as read, so notifications dropped from the body (deleted statuses) never stall paging.
  return pageReply({ path: ctx.path, query: linkQuery(input, ctx.query) }, edgesOf(page), body, { keyOf: ownId, ascending: input.min_id !== undefined });
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: notificationsQuery });
