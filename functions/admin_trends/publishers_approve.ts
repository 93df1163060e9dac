// POST /api/v1/admin/trends/links/publishers/:id/approve (Mastodon 4.3's Admin::Trends::Links::PreviewCardProvidersController)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reviewLinkPublisher } from '../../lib/moderation/trends';
import { renderPublisher } from '../../lib/render/admin_trends';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderPublisher(await reviewLinkPublisher(ctx.account, input.id, 'approve'));
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write'], permission: 'manage_taxonomies', schema });
