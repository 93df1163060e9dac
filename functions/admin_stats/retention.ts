// POST /api/v1/admin/retention (https://docs.joinmastodon.org/methods/admin/retention/): the sign-up cohorts of
// start_at..end_at by day or month, as Admin::Cohort.
import { z } from 'zod';
import { http } from '../../lib/http';
import { retention } from '../../lib/moderation/dashboard';
import { periodFields, periodOf } from '../../lib/moderation/dashboard_input';

export const schema = z.object({
  ...periodFields,
  frequency: z.enum(['day', 'month'], { errorMap: () => ({ message: 'must be day or month' }) }).default('day'),
});

export async function run(input: z.infer<typeof schema>) {
  return retention(periodOf(input), input.frequency);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read'], permission: 'view_dashboard', schema });
