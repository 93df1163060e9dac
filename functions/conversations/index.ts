// GET /api/v1/conversations (https://docs.joinmastodon.org/methods/conversations/#get)
import { listConversations } from '../../lib/conversations';
import { http, type Ctx } from '../../lib/http';
import { ownId, pageReply } from '../../lib/http/page';
import { pageQuery, type Page } from '../../lib/paging';

export const schema = pageQuery(20, 40);

export async function run(input: Page, ctx: Ctx<'user'>) {
  const page = await listConversations(ctx.account, input);
  // Each conversation carries its last status, so a page of them is held to the size budget as a timeline is.
  return pageReply(ctx, page, page.conversations, { keyOf: (c) => page.pagingIds.get(ownId(c) ?? '') });
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema });
