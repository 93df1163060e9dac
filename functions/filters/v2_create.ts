// POST /api/v2/filters (https://docs.joinmastodon.org/methods/filters/#create): title, context[], filter_action, expires_in, keywords_attributes[].
import type { z } from 'zod';
import { renderFilterV2 } from '../../lib/filters/entities';
import { createFilterV2, filterV2Fields } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

export async function run(input: z.infer<typeof filterV2Fields>, ctx: Ctx<'user'>) {
  const filter = await createFilterV2(ctx.account.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilterV2(filter);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema: filterV2Fields });
