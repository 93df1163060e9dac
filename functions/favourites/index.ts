// GET /api/v1/favourites (https://docs.joinmastodon.org/methods/favourites/#get)
import type { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { favouritesOf } from '../../lib/interactions/interaction_lists';
import { renderStatuses } from '../../lib/render/status';

export const input = pageQuery(20, 40);

/** Newest favourite first; `max_id`/`min_id` are favourite ids, so clients follow the Link header. */
export async function run(params: z.infer<typeof input>, ctx: { account: Account; path: string; query: Record<string, unknown> }) {
  const page = await favouritesOf(ctx.account, params);
  return pageReply(ctx, page, await renderStatuses(page.items, ctx.account));
}

export const handler = http(run, { auth: 'user', scopes: ['read:favourites'], schema: input });
