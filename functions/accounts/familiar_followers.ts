// GET /api/v1/accounts/familiar_followers (https://docs.joinmastodon.org/methods/accounts/#familiar_followers)
import { z } from 'zod';
import { familiarFollowersOf } from '../../lib/graph/familiar_followers';
import { http, type Ctx } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';
import { oneOrMany } from '../../lib/schema';

const idValue = z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long');

/** `id[]=1&id[]=2`, or a single `id=1`. */
export const schema = z.object({
  id: oneOrMany(z.array(idValue, { invalid_type_error: 'must be a list of ids' }).max(1000, 'has too many ids')).optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const familiar = await familiarFollowersOf(ctx.account, input.id ?? []);
  return familiar.map(({ id, accounts }) => ({ id, accounts: accounts.map((a) => renderAccount(a)) }));
}

export const handler = http(run, { auth: 'user', scopes: ['read:follows', 'follow'], schema });
