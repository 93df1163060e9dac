// GET /api/v1/statuses/:id/quotes (https://docs.joinmastodon.org/methods/statuses/#quotes), Mastodon 4.5: the
// accepted quotes of a status; its author sees every one, anyone else who may see it those it may see.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { renderStatuses } from '../../lib/render/status';
import { quotesOf } from '../../lib/statuses/quotes';

// Statuses lists: 20 by default, at most 40, as Mastodon's DEFAULT_STATUSES_LIMIT.
export const schema = pageQuery(20, 40).extend({ id: z.string() });

/** Paged by the quoting statuses' ids, newest first, with the Link header. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await quotesOf(input.id, ctx.account, input);
  return pageReply(ctx, page, await renderStatuses(page.items, ctx.account), { keyOf: (s) => (s as { id?: string }).id });
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
