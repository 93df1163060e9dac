// GET /api/v1/annual_reports/:year (https://docs.joinmastodon.org/methods/annual_reports/#get): the caller's report
// of that year, viewed or not; 404 when it has none.
import { z } from 'zod';
import { reportOf, yearOf } from '../../lib/annual_reports';
import { http, type Ctx } from '../../lib/http';
import { renderAnnualReports } from '../../lib/render/annual_report';

export const schema = z.object({ year: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderAnnualReports([await reportOf(ctx.account, yearOf(input.year))], ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
