// DELETE /api/v1/suggestions/:account_id (https://docs.joinmastodon.org/methods/suggestions/#remove)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { notFound } from '../../lib/errors';
import { isId } from '../../lib/ids';
import { dismissSuggestion } from '../../lib/suggestions';

export const schema = z.object({ account_id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  if (!isId(input.account_id)) throw notFound();
  await dismissSuggestion(ctx.account, input.account_id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['read'], schema });
