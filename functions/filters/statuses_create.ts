// POST /api/v2/filters/:id/statuses (https://docs.joinmastodon.org/methods/filters/#statuses-add): adds a status (status_id) to a filter of the caller.
import { z } from 'zod';
import { renderFilterStatus } from '../../lib/filters/entities';
import { addStatusFilter, statusFilterFields } from '../../lib/filters/v2';
import { http, type Ctx } from '../../lib/http';
import { publishFiltersChanged } from '../../lib/streaming/publish';

/** `id` is the filter's. */
export const schema = statusFilterFields.extend({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const added = await addStatusFilter(ctx.account, input.id, input);
  await publishFiltersChanged(ctx.account.id);
  return renderFilterStatus(added);
}

export const handler = http(run, { auth: 'user', scopes: ['write:filters'], schema });
