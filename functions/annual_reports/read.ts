// POST /api/v1/annual_reports/:year/read (https://docs.joinmastodon.org/methods/annual_reports/#read): the report is
// viewed, and leaves GET /api/v1/annual_reports; 404 when the caller has no report that year.
import { z } from 'zod';
import { markReportRead, yearOf } from '../../lib/annual_reports';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ year: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await markReportRead(ctx.account, yearOf(input.year));
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
