// POST /api/v1/admin/dimensions (https://docs.joinmastodon.org/methods/admin/dimensions/): each key asked, as an
// Admin::Dimension over start_at..end_at, at most `limit` rows each.
import { z } from 'zod';
import { forbidden } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { DIMENSION_KEYS, dimension, isInstanceKey, type DimensionKey } from '../../lib/moderation/dashboard';
import { dimensionKeys, keyParams, periodFields, periodOf } from '../../lib/moderation/dashboard_input';
import { limitParam } from '../../lib/paging';
import { can } from '../../lib/policy/roles';

export const schema = z.object({
  keys: dimensionKeys,
  ...periodFields,
  limit: limitParam(10, 100),
  ...(Object.fromEntries(DIMENSION_KEYS.map((key) => [key, keyParams])) as Record<DimensionKey, typeof keyParams>),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const period = periodOf(input);
  if (input.keys.some(isInstanceKey) && !can(ctx.account, 'manage_federation')) throw forbidden();
  return Promise.all(input.keys.map((key) => dimension(key, period, input[key], input.limit)));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'view_dashboard', schema });
