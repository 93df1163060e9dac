// POST /oauth/token (https://docs.joinmastodon.org/methods/oauth/#token)
import { z } from 'zod';
import { http, json, type Ctx } from '../../lib/http';
import { NO_STORE } from '../../lib/oauth/errors';
import { exchange } from '../../lib/oauth/token';
import { renderTokenResponse } from '../../lib/tokens';

// Parameters are checked by lib/oauth/token so that bad ones answer OAuth errors rather than 422.
const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  const { raw, token } = await exchange(input, ctx.headers.authorization, ctx.ip);
  return json(renderTokenResponse(raw, token), 200, NO_STORE);
}

export const handler = http(run, { auth: 'public', schema });
