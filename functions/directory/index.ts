// GET /api/v1/directory (https://docs.joinmastodon.org/methods/directory/#get)
import { z } from 'zod';
import { directoryPage } from '../../lib/directory';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { offsetParam } from '../../lib/paging/offset';
import { renderAccount } from '../../lib/render/account';
import { listedInDirectory } from '../../lib/policy/sanctions';
import { absent, booleanish } from '../../lib/schema';

export const schema = z.object({
  offset: offsetParam,
  limit: limitParam(40, 80),
  // Mastodon: blank or `active` orders by the latest status, `new` by the account's creation.
  order: absent(z.enum(['active', 'new'], { errorMap: () => ({ message: "must be 'active' or 'new'" }) })).transform((v) => v ?? 'active'),
  local: booleanish.optional().transform((v) => v === true),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const accounts = await directoryPage(ctx.account, input);
  return listedInDirectory(accounts).map((account) => renderAccount(account));
}

export const handler = http(run, { auth: 'optional', schema });
