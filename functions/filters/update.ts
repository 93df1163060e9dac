// PUT /api/v1/filters/:id (https://docs.joinmastodon.org/methods/filters/#update-v1)
import { z } from 'zod';
import { changeFilter, filterFields, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = filterFields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const filter = await changeFilter(ctx.account.id, input.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilter(filter);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
