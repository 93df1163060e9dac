// GET /api/v1/statuses/:id/reblogged_by (https://docs.joinmastodon.org/methods/statuses/#reblogged_by)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { pageQuery } from '../../lib/paging';
import { rebloggedBy } from '../../lib/interactions/interaction_lists';
import { renderAccount } from '../../lib/render/account';

// Accounts lists: 40 by default, at most 80, as Mastodon's DEFAULT_ACCOUNTS_LIMIT.
export const schema = pageQuery(40, 80).extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: { account: Account | undefined; path: string; query: Record<string, unknown> }) {
  const page = await rebloggedBy(input.id, ctx.account, input);
  return pageReply(ctx, page, page.items.map((a) => renderAccount(a)));
}

// Public; a token, when sent, must be valid and hold read:statuses (or read:accounts, as Mastodon 3.5 asked).
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses', 'read:accounts'], schema });
