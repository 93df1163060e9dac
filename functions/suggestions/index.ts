// GET /api/v1/suggestions (https://docs.joinmastodon.org/methods/suggestions/#v1)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';
import { listedInDirectory } from '../../lib/policy/sanctions';
import { suggestionsFor } from '../../lib/suggestions';

export const schema = z.object({ limit: limitParam(40, 80) });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const accounts = await suggestionsFor(ctx.account, input.limit);
  return listedInDirectory(accounts).map((a) => renderAccount(a));
}

export const handler = http(run, { auth: 'user', scopes: ['read'], schema });
