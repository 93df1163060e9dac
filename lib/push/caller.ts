// The caller of a push subscription endpoint: account, token record, and the
// raw token it authenticated with (sealed into the subscription for the payload).
import { sha256 } from '../crypto';
import type { Ctx } from '../http';
import { bearerToken } from '../http/auth';
import type { Caller } from './subscription';

export function callerOf(ctx: Ctx<'user'>): Caller {
  const raw = bearerToken(ctx.event, ctx.query);
  // Only a value that is this very token is kept (a token sent in the body is not seen here: the payload then carries none).
  const rawToken = raw && sha256(raw) === ctx.token.tokenHash ? raw : undefined;
  return { account: ctx.account, token: ctx.token, rawToken };
}
