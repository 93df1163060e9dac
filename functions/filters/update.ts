// PUT /api/v1/filters/:id (https://docs.joinmastodon.org/methods/filters/#update-v1)
import { z } from 'zod';
import { changeFilter, filterFields, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';

export const input = filterFields.extend({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: Ctx<'user'>) {
  return renderFilter(await changeFilter(ctx.account.id, params.id, params));
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema: input });
