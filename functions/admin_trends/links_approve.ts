// POST /api/v1/admin/trends/links/:id/approve (https://docs.joinmastodon.org/methods/admin/trends/#approve-link)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reviewTrendingLink } from '../../lib/moderation/trends';
import { renderAdminTrendLink } from '../../lib/render/admin_trends';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminTrendLink(await reviewTrendingLink(ctx.account, input.id, 'approve'));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write'], permission: 'manage_taxonomies', schema });
