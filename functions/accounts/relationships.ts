// GET /api/v1/accounts/relationships (https://docs.joinmastodon.org/methods/accounts/#relationships)
import { z } from 'zod';
import { relationshipsOf } from '../../lib/graph/relationships';
import { http, type Ctx } from '../../lib/http';
import { booleanish, oneOrMany } from '../../lib/schema';

const idValue = z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long');

/** `id[]=1&id[]=2`, or a single `id=1`. */
export const schema = z.object({
  id: oneOrMany(z.array(idValue, { invalid_type_error: 'must be a list of ids' }).max(1000, 'has too many ids')).optional(),
  with_suspended: booleanish.default(false),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return relationshipsOf(ctx.account, input.id ?? [], input.with_suspended);
}

export const handler = http(run, { auth: 'user', scopes: ['read:follows', 'follow'], schema });
