// GET /api/v1/timelines/tag/:hashtag (https://docs.joinmastodon.org/methods/timelines/#tag)
import { http, type Ctx } from '../../lib/http';
import { assertPublicPreview, tagQuery, tagTimeline, type TagQuery } from '../../lib/timelines/read';
import { timelineReply } from '../../lib/timelines/respond';

export async function run(input: TagQuery, ctx: Ctx<'optional'>) {
  await assertPublicPreview(ctx.account, ctx.token !== undefined);
  const page = await tagTimeline(input, ctx.account);
  return timelineReply(page, ctx.account, ctx.path, ctx.query);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema: tagQuery });
