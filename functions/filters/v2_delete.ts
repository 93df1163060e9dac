// DELETE /api/v2/filters/:id (https://docs.joinmastodon.org/methods/filters/#delete): the filter with its keywords and statuses.
import { z } from 'zod';
import { deleteFilterV2 } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await deleteFilterV2(ctx.account.id, input.id);
  await publishFiltersChanged(ctx.account.id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
