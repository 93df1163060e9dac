// DELETE /api/v1/lists/:id/accounts (https://docs.joinmastodon.org/methods/lists/#accounts-remove)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { accountIds, removeAccounts } from '../../lib/lists';

export const schema = z.object({ id: z.string(), account_ids: accountIds });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await removeAccounts(ctx.account, input.id, input.account_ids);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:lists'], schema });
