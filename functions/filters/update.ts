// PUT /api/v1/filters/:id (https://docs.joinmastodon.org/methods/filters/#update-v1)
import { z } from 'zod';
import { changeFilter, filterFields, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';

export const schema = filterFields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderFilter(await changeFilter(ctx.account.id, input.id, input));
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
