// GET /api/v2/suggestions (https://docs.joinmastodon.org/methods/suggestions/#v2)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { renderAccount } from '../../lib/render/account';
import { isSilenced, isSuspended } from '../../lib/policy/sanctions';
import { legacySource, suggestionsWithSources } from '../../lib/suggestions/v2';

export const schema = z.object({ limit: limitParam(40, 80) });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const suggestions = await suggestionsWithSources(ctx.account, input.limit);
  return suggestions.filter(({ account }) => !isSuspended(account) && !isSilenced(account)).map(({ account, sources }) => ({ source: legacySource(sources[0]!), sources, account: renderAccount(account) }));
}

export const handler = http(run, { auth: 'user', scopes: ['read'], schema });
