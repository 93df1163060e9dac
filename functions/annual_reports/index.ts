// GET /api/v1/annual_reports (https://docs.joinmastodon.org/methods/annual_reports/#index): the caller's reports
// not yet viewed, with the statuses and accounts they name.
import { z } from 'zod';
import { unviewedReports } from '../../lib/annual_reports';
import { http, type Ctx } from '../../lib/http';
import { renderAnnualReports } from '../../lib/render/annual_report';

export const schema = z.object({});

export async function run(_input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAnnualReports(await unviewedReports(ctx.account), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
