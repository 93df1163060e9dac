// POST /oauth/revoke (https://docs.joinmastodon.org/methods/oauth/#revoke)
import { z } from 'zod';
import { http, json, type Ctx } from '../../lib/http';
import { NO_STORE } from '../../lib/oauth/errors';
import { revoke } from '../../lib/oauth/revoke';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await revoke(input, ctx.headers.authorization);
  return json({}, 200, NO_STORE);
}

export const handler = http(run, { auth: 'public', schema });
