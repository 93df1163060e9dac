// GET /api/v1/conversations (https://docs.joinmastodon.org/methods/conversations/#get)
import { http, json, type Ctx } from '../../lib/http';
import { linkHeader, pageQuery, type Page } from '../../lib/http/link';
import { listConversations } from '../../lib/conversations';

export const conversationsQuery = pageQuery(20, 40);

export async function run(input: Page, ctx: Ctx<'user'>) {
  const page = await listConversations(ctx.account, input);
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) if (typeof v === 'string') query[k] = v;
  const link = linkHeader(ctx.path, query, { newest: page.newest, oldest: page.oldest });
  return json(page.conversations, 200, link ? { Link: link } : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:statuses'], schema: conversationsQuery });
