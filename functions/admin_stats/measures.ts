// POST /api/v1/admin/measures (https://docs.joinmastodon.org/methods/admin/measures/): each key asked, as an
// Admin::Measure over start_at..end_at. Which keys are exact, and which answer no data, is lib/moderation/dashboard.ts's.
import { z } from 'zod';
import { forbidden } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { MEASURE_KEYS, isInstanceKey, measure, type MeasureKey } from '../../lib/moderation/dashboard';
import { keyParams, measureKeys, periodFields, periodOf } from '../../lib/moderation/dashboard_input';
import { can } from '../../lib/policy/roles';

export const schema = z.object({
  keys: measureKeys,
  ...periodFields,
  ...(Object.fromEntries(MEASURE_KEYS.map((key) => [key, keyParams])) as Record<MeasureKey, typeof keyParams>),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const period = periodOf(input);
  // A server's figures are for those who manage federation, as Mastodon's instance pages.
  if (input.keys.some(isInstanceKey) && !can(ctx.account, 'manage_federation')) throw forbidden();
  return Promise.all(input.keys.map((key) => measure(key, period, input[key])));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'view_dashboard', schema });
