// POST /api/v1/accounts (https://docs.joinmastodon.org/methods/accounts/#create)
import { registerAccount, registrationInput } from '../../lib/accounts/register';
import { appByClientId } from '../../lib/db/apps';
import { unauthorized } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { renderTokenResponse } from '../../lib/tokens';

export async function run(input: typeof registrationInput._output, ctx: Ctx<'app'>) {
  const app = await appByClientId(ctx.token.clientId);
  if (!app) throw unauthorized();
  const { token } = await registerAccount(input, { app, ip: ctx.ip });
  if (!token) throw new Error('registration issued no token');
  return renderTokenResponse(token.raw, token.token);
}

export const handler = http(run, { auth: 'app', scopes: ['write:accounts'], schema: registrationInput, throttles: [throttles.signUp] });
