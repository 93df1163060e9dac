// GET /api/v2/notifications/unread_count (https://docs.joinmastodon.org/methods/grouped_notifications/#unread-group-count):
// the groups newer than the notifications marker, counted up to `limit` (100, at most 1,000).
import { http, type Ctx } from '../../lib/http';
import { unreadCount, unreadCountQuery, type UnreadCountQuery } from '../../lib/notifications/grouped';

export async function run(input: UnreadCountQuery, ctx: Ctx<'user'>) {
  return { count: await unreadCount(ctx.account, input, 'groups') };
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: unreadCountQuery });
