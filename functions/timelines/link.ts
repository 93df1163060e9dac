// GET /api/v1/timelines/link?url= (https://docs.joinmastodon.org/methods/timelines/#link, Mastodon 4.3):
// the statuses sharing a trending link, where a client lands from a trending link.
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { renderStatuses } from '../../lib/render/status';
import { linkQuery, linkTimeline, type LinkQuery } from '../../lib/timelines/link';
import { assertPublicPreview } from '../../lib/timelines/read';

export async function run(input: LinkQuery, ctx: Ctx<'optional'>) {
  await assertPublicPreview(ctx.account, ctx.token !== undefined);
  const page = await linkTimeline(input, ctx.account);
  return pageReply(ctx, page, await renderStatuses(page.statuses, ctx.account, { context: 'public' }), { keyOf: ownId });
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: linkQuery });
