// GET /api/v1/timelines/home (https://docs.joinmastodon.org/methods/timelines/#home)
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { homeQuery, homeTimeline, type HomeQuery } from '../../lib/timelines/read';
import { renderStatuses } from '../../lib/render/status';

export async function run(input: HomeQuery, ctx: Ctx<'user'>) {
  const page = await homeTimeline(ctx.account, input);
  return pageReply(ctx, page, await renderStatuses(page.statuses, ctx.account, { context: 'home' }), { keyOf: ownId });
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema: homeQuery });
