// GET /api/v2/notifications/:group_key/accounts (https://docs.joinmastodon.org/methods/grouped_notifications/#get-group-accounts):
// the actors of a group's notifications, newest first, paged by notification id.
import { accountsByIds } from '../../lib/db/accounts';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { notificationsOfGroup } from '../../lib/notifications/grouped';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';
import { z } from 'zod';

export const schema = pageQuery(40, 80).extend({ group_key: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const members = await notificationsOfGroup(ctx.account, input.group_key, { max_id: input.max_id, since_id: input.since_id, limit: input.limit });
  const accounts = await accountsByIds([...new Set(members.map((n) => n.fromAccountId))]);
  const body = members.flatMap((n) => {
    const account = accounts.get(n.fromAccountId);
    return account ? [renderAccount(account)] : [];
  });
  return pageReply(ctx, edgesOf(members), body);
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema });
