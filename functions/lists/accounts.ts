// GET /api/v1/lists/:id/accounts (https://docs.joinmastodon.org/methods/lists/#query-accounts)
import { z } from 'zod';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { listAccounts } from '../../lib/lists';

const idParam = z.string().regex(/^\d{1,20}$/, 'must be an id').optional();

/** `limit` defaults to 40, is capped at 40, and 0 answers every account without paging. */
export const listAccountsInput = z.object({
  id: z.string(),
  max_id: idParam,
  since_id: idParam,
  min_id: idParam,
  limit: z.coerce.number({ invalid_type_error: 'must be a number' }).int().min(0).optional().transform((n) => (n === undefined ? 40 : Math.min(n, 40))),
});

export async function run(input: z.infer<typeof listAccountsInput>, ctx: Ctx<'user'>) {
  const page = input.limit === 0 ? { limit: 0 as const } : { ...input, limit: input.limit };
  return accountsReply(await listAccounts(ctx.account, input.id, page), ctx);
}

export const handler = http(run, { auth: 'user', scopes: ['read:lists'], schema: listAccountsInput });
