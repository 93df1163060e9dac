// GET /api/v1/timelines/home (https://docs.joinmastodon.org/methods/timelines/#home)
import { http, type Ctx } from '../../lib/http';
import { homeQuery, homeTimeline, type HomeQuery } from '../../lib/timelines/read';
import { timelineReply } from '../../lib/timelines/respond';

export async function run(input: HomeQuery, ctx: Ctx<'user'>) {
  const page = await homeTimeline(ctx.account, input);
  return timelineReply(page, ctx.account, ctx.path, ctx.query);
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema: homeQuery });
