// GET /api/v1/lists/:id/accounts (https://docs.joinmastodon.org/methods/lists/#query-accounts)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { pageReply } from '../../lib/http/page';
import { listAccounts } from '../../lib/lists';
import { renderAccount } from '../../lib/render/account';
import { idParam, intParam } from '../../lib/schema';

/** `limit` defaults to 40, is capped at 40, and 0 answers every account without paging. */
export const schema = z.object({
  id: z.string(),
  max_id: idParam,
  since_id: idParam,
  min_id: idParam,
  limit: intParam.min(0).optional().transform((n) => (n === undefined ? 40 : Math.min(n, 40))),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const paging = input.limit === 0 ? { limit: 0 as const } : { ...input, limit: input.limit };
  const page = await listAccounts(ctx.account, input.id, paging);
  return pageReply(ctx, page, page.accounts.map((a) => renderAccount(a)));
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema });
