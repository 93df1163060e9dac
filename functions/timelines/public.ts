// GET /api/v1/timelines/public (https://docs.joinmastodon.org/methods/timelines/#public)
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { assertPublicPreview, publicQuery, publicTimeline, type PublicQuery } from '../../lib/timelines/read';
import { renderStatuses } from '../../lib/render/status';

export async function run(input: PublicQuery, ctx: Ctx<'optional'>) {
  await assertPublicPreview(ctx.account, ctx.token !== undefined);
  const page = await publicTimeline(input, ctx.account);
  return pageReply(ctx, page, await renderStatuses(page.statuses, ctx.account, { context: 'public' }), { keyOf: ownId });
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: publicQuery });
