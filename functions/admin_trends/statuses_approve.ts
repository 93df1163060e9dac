// POST /api/v1/admin/trends/statuses/:id/approve (https://docs.joinmastodon.org/methods/admin/trends/#approve-status)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reviewTrendingStatus } from '../../lib/moderation/trends';
import { renderAdminTrendStatuses } from '../../lib/render/admin_trends';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return (await renderAdminTrendStatuses([{ status: await reviewTrendingStatus(ctx.account, input.id, 'approve'), requiresReview: false }], ctx.account))[0];
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write'], permission: 'manage_taxonomies', schema });
