// GET /api/v1/scheduled_statuses (https://docs.joinmastodon.org/methods/scheduled_statuses/#get)
import type { z } from 'zod';
import { scheduledOf } from '../../lib/db/scheduled';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { edgesOf, pageQuery } from '../../lib/paging';
import { renderScheduledStatuses } from '../../lib/render/scheduled_status';

export const schema = pageQuery(20, 40);

/** The caller's scheduled statuses, newest id first, with Mastodon's Link header. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const items = await scheduledOf(ctx.account.id, input);
  return pageReply(ctx, edgesOf(items), await renderScheduledStatuses(items));
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
