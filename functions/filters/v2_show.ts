// GET /api/v2/filters/:id (https://docs.joinmastodon.org/methods/filters/#get-one): one filter of the caller, with its keywords and statuses.
import { z } from 'zod';
import { renderFilterV2 } from '../../lib/filters/entities';
import { filterV2 } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderFilterV2(await filterV2(ctx.account.id, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
