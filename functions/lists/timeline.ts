// GET /api/v1/timelines/list/:list_id (https://docs.joinmastodon.org/methods/timelines/#list)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { listTimeline } from '../../lib/lists';
import { timelineQuery } from '../../lib/timelines/read';
import { timelineReply } from '../../lib/timelines/respond';

export const listTimelineInput = timelineQuery.extend({ list_id: z.string() });

export async function run(input: z.infer<typeof listTimelineInput>, ctx: Ctx<'user'>) {
  const page = await listTimeline(ctx.account, input.list_id, input);
  return timelineReply(page, ctx.account, ctx.path, ctx.query);
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema: listTimelineInput });
