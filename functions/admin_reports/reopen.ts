// POST /api/v1/admin/reports/:id/reopen (https://docs.joinmastodon.org/methods/admin/reports/#reopen)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reopenReport } from '../../lib/moderation/reports';
import { renderAdminReport } from '../../lib/render/admin_report';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAdminReport(await reopenReport(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['admin:write:reports'], permission: 'manage_reports', schema });
