// GET /api/v1/followed_tags (https://docs.joinmastodon.org/methods/followed_tags/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { followedTags } from '../../lib/tags/follows';

/** Mastodon's TAGS_LIMIT: 100 by default, at most twice that. */
export const schema = pageQuery(100, 200);

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await followedTags(ctx.account, input);
  return pageReply(ctx, page, page.tags);
}

export const handler = http(run, { auth: 'user', scopes: ['read:follows', 'follow'], schema });
