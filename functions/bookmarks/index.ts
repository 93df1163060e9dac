// GET /api/v1/bookmarks (https://docs.joinmastodon.org/methods/bookmarks/#get)
import type { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { bookmarksOf } from '../../lib/interactions/interaction_lists';
import { renderStatuses } from '../../lib/render/status';

export const schema = pageQuery(20, 40);

/** Newest bookmark first; `max_id`/`min_id` are bookmark ids, so clients follow the Link header. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await bookmarksOf(ctx.account, input);
  return pageReply(ctx, page, await renderStatuses(page.items, ctx.account), { keyOf: (s) => page.pagingIds.get(ownId(s) ?? '') });
}

export const handler = http(run, { auth: 'user', scopes: ['read:bookmarks'], schema });
