// POST /api/v1/notifications/clear (https://docs.joinmastodon.org/methods/notifications/#clear)
import { clearNotifications } from '../../lib/db/notifications';
import { http, type Ctx } from '../../lib/http';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  await clearNotifications(ctx.account.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'] });
