// GET /api/v1/notifications/unread_count (https://docs.joinmastodon.org/methods/notifications/#unread-count):
// the notifications newer than the notifications marker, counted up to `limit` (100, at most 1,000).
import { http, type Ctx } from '../../lib/http';
import { unreadCount, unreadCountQuery, type UnreadCountQuery } from '../../lib/notifications/grouped';

export async function run(input: UnreadCountQuery, ctx: Ctx<'user'>) {
  return { count: await unreadCount(ctx.account, input, 'notifications') };
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema: unreadCountQuery });
