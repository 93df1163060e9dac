// GET /api/v2/notifications/:group_key (https://docs.joinmastodon.org/methods/grouped_notifications/#get-notification-group):
// one of the viewer's groups, every member counted; 404 for a key that is not theirs.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { raw } from '../../lib/http/reply';
import { groupByKey } from '../../lib/notifications/grouped';
import { supportedTypes } from '../../lib/notifications/query';
import { groupedResultsJson, renderNotificationGroups } from '../../lib/render/notification_group';

export const schema = z.object({ group_key: z.string(), ...supportedTypes });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const group = await groupByKey(ctx.account, input.group_key);
  const results = group ? await renderNotificationGroups([group], ctx.account, { paginated: false, supportedTypes: input.supported_types }) : undefined;
  if (!results || results.notification_groups.length === 0) throw notFound();
  return raw(groupedResultsJson(results), 'application/json; charset=utf-8');
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema });
