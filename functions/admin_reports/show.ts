// GET /api/v1/admin/reports/:id (https://docs.joinmastodon.org/methods/admin/reports/#get-one)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reportForModerator } from '../../lib/moderation/reports';
import { renderAdminReport } from '../../lib/render/admin_report';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminReport(await reportForModerator(input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:read:reports'], permission: 'manage_reports', schema });
