// GET /api/v1/filters/:id (https://docs.joinmastodon.org/methods/filters/#get-one-v1)
import { z } from 'zod';
import { ownFilter, renderFilter } from '../../lib/filters';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderFilter(await ownFilter(ctx.account.id, input.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:filters'], schema });
