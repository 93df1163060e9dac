// GET /api/v1/timelines/public (https://docs.joinmastodon.org/methods/timelines/#public)
import { http, type Ctx } from '../../lib/http';
import { assertPublicPreview, publicQuery, publicTimeline, type PublicQuery } from '../../lib/timelines/read';
import { timelineReply } from '../../lib/timelines/respond';

export async function run(input: PublicQuery, ctx: Ctx<'optional'>) {
  await assertPublicPreview(ctx.account, ctx.token !== undefined);
  const page = await publicTimeline(input, ctx.account);
  return timelineReply(page, ctx.account, ctx.path, ctx.query);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: publicQuery });
