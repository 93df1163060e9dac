// GET /api/v1/timelines/list/:list_id (https://docs.joinmastodon.org/methods/timelines/#list)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { listTimeline } from '../../lib/lists';
import { timelineQuery } from '../../lib/timelines/read';
import { renderStatuses } from '../../lib/render/status';

export const schema = timelineQuery.extend({ list_id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await listTimeline(ctx.account, input.list_id, input);
  return pageReply(ctx, page, await renderStatuses(page.statuses, ctx.account, { context: 'home' }), { keyOf: ownId });
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema });
