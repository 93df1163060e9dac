// POST /api/v1/annual_reports/:year/generate (https://docs.joinmastodon.org/methods/annual_reports/#generate-a-new-annual-report-generate):
// 202 with the refresh to poll while the report is generated (queued now, or already running); 200 `{}` when it
// exists already or the year is not the current campaign's.
import { z } from 'zod';
import { generationHeader, requestReport, yearOf } from '../../lib/annual_reports';
import { http, Reply, type Ctx } from '../../lib/http';

export const schema = z.object({ year: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const request = await requestReport(ctx.account, yearOf(input.year));
  // Mastodon answers `head 202`: no body.
  return request.started ? new Reply(202, '', generationHeader(request.refreshId), [], 'raw') : {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema });
