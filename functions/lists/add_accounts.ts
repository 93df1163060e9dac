// POST /api/v1/lists/:id/accounts (https://docs.joinmastodon.org/methods/lists/#accounts-add)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { accountIds, addAccounts } from '../../lib/lists';

export const schema = z.object({ id: z.string(), account_ids: accountIds });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await addAccounts(ctx.account, input.id, input.account_ids);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:lists'], schema });
