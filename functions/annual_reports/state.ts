// GET /api/v1/annual_reports/:year/state (https://docs.joinmastodon.org/methods/annual_reports/#get-state):
// `available`, `generating` (with the refresh to poll), `eligible` or `ineligible`.
import { z } from 'zod';
import { generationHeader, reportState, yearOf } from '../../lib/annual_reports';
import { http, json, type Ctx } from '../../lib/http';

export const schema = z.object({ year: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { state, refreshId } = await reportState(ctx.account, yearOf(input.year));
  return json({ state }, 200, refreshId ? generationHeader(refreshId) : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'], schema });
