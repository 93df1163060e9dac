// GET /api/v1/statuses?id[]= (https://docs.joinmastodon.org/methods/statuses/#index): several statuses at once
// (Mastodon 4.3), in the order asked. An id of a status that does not exist, or that the viewer may not see (its
// visibility, a block, a mute, a blocked domain, a sanctioned author), is passed over, as Mastodon's
// permitted_statuses_from_ids does; more than 20 ids is 422, as Mastodon's limit.
import { z } from 'zod';
import { statusesByIds } from '../../lib/db/statuses';
import { http, type Ctx } from '../../lib/http';
import { isId } from '../../lib/ids';
import { visibleTo } from '../../lib/policy/view';
import { renderStatuses } from '../../lib/render/status';
import { oneOrMany } from '../../lib/schema';

/** Mastodon's DEFAULT_STATUSES_LIMIT, the most ids one request may name. */
export const MAX_STATUS_IDS = 20;

const idValue = z.string({ invalid_type_error: 'must be a string' }).max(40, 'is too long');

export const schema = z.object({
  id: oneOrMany(z.array(idValue, { invalid_type_error: 'must be a list of ids' }).max(MAX_STATUS_IDS, `has too many ids (maximum is ${MAX_STATUS_IDS})`)).optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const ids = [...new Set(input.id ?? [])].filter(isId);
  if (ids.length === 0) return [];
  const found = await statusesByIds(ids);
  const statuses = ids.flatMap((id) => found.get(id) ?? []);
  return renderStatuses(await visibleTo(ctx.account, statuses, 'lookup'), ctx.account, { context: 'thread' });
}

// A token is optional (public statuses need none); when one is sent it must be valid and hold read:statuses.
export const handler = http(run, { auth: 'optional', scopes: ['read:statuses'], schema });
