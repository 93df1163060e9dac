// GET /api/v1/notifications (https://docs.joinmastodon.org/methods/notifications/#get)
import { notificationsPage } from '../../lib/db/notifications';
import { dropFilteredNotifications } from '../../lib/filters';
import { hiddenFor, notificationHidden } from '../../lib/graph/hidden';
import { http, json, type Ctx } from '../../lib/http';
import { linkHeader } from '../../lib/http/link';
import { linkQuery, notificationsQuery, requestedTypes, type NotificationsQuery } from '../../lib/notifications/query';
import { renderNotifications } from '../../lib/render/notification';

export async function run(input: NotificationsQuery, ctx: Ctx<'user'>) {
  const page = await notificationsPage(ctx.account.id, input, { types: requestedTypes(input), fromAccountId: input.account_id });
  // Notifications from accounts blocked either way (or muted with notifications) are hidden on read.
  const hidden = await hiddenFor(ctx.account.id);
  // Irreversible `notifications` filters drop notifications about matching statuses (filters added later included).
  const shown = await dropFilteredNotifications(page.filter((n) => !notificationHidden(hidden, n.fromAccountId)), ctx.account.id);
  const body = await renderNotifications(shown, ctx.account);
  // The Link follows the page as read, so notifications dropped from the body (deleted statuses) never stall paging.
  const link = linkHeader(ctx.path, linkQuery(input, ctx.query), { newest: page[0]?.id, oldest: page.at(-1)?.id });
  return json(body, 200, link ? { Link: link } : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: notificationsQuery });
