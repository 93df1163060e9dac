// PUT /api/v2/filters/:id (https://docs.joinmastodon.org/methods/filters/#update): the filter's settings, and its keywords through keywords_attributes[] (with `_destroy`).
import { z } from 'zod';
import { renderFilterV2 } from '../../lib/filters/entities';
import { filterV2Fields, updateFilterV2 } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export const schema = filterV2Fields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const filter = await updateFilterV2(ctx.account.id, input.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilterV2(filter);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
