// POST /api/v2/notifications/:group_key/dismiss (https://docs.joinmastodon.org/methods/grouped_notifications/#dismiss-group):
// removes every notification of the viewer's group. As Mastodon's destroy_all, a key
// naming nothing of the viewer's removes nothing and still answers 200.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { dismissGroup } from '../../lib/notifications/grouped';

export const schema = z.object({ group_key: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await dismissGroup(ctx.account, input.group_key);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
