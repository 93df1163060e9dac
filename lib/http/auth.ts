// Bearer token to token record, the scope check, and the state of the user behind it.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { sha256 } from '../crypto';
import { accountById, type Account } from '../db/accounts';
import { tokenByHash, type Token } from '../db/tokens';
import { accountDisabled, accountPending, emailUnconfirmed, outsideScopes, requiresUser, unauthorized } from '../errors';
import { header } from './body';
import { satisfies } from './scopes';

export type AuthMode = 'public' | 'optional' | 'app' | 'user';

export type Auth = { token: Token; account: Account | undefined };

/** Reads the access token the way Doorkeeper does: the Authorization header, else an `access_token` parameter. */
export function bearerToken(event: APIGatewayProxyEventV2, params: Record<string, unknown>): string | undefined {
  const value = header(event, 'authorization');
  if (value) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
    return match?.[1] ?? '';
  }
  const param = params.access_token;
  return typeof param === 'string' ? param : undefined;
}

/** Answers the user's state error, if the account may not use the API. */
export function assertFunctional(account: Account): void {
  if (!account.confirmedAt) throw emailUnconfirmed();
  if (!account.approved) throw accountPending();
  if (account.disabled) throw accountDisabled();
}

export async function resolveToken(raw: string): Promise<Auth | undefined> {
  if (raw === '' || raw.length > 512) return undefined;
  const token = await tokenByHash(sha256(raw));
  if (!token) return undefined;
  const account = token.accountId ? await accountById(token.accountId) : undefined;
  if (token.accountId && !account) return undefined;
  return { token, account };
}

/**
 * Authenticates a request for the given mode. In order, as Mastodon: 401 for a
 * missing or invalid token, 403 outside the scopes, 422 for an app token where a
 * user is needed, then 403 for an unconfirmed, pending or disabled login.
 */
export async function authenticate(
  mode: AuthMode,
  scopes: string[],
  raw: string | undefined,
): Promise<Auth | undefined> {
  // Public endpoints never look at a token; optional ones check it only when one is sent.
  if (mode === 'public' || (mode === 'optional' && raw === undefined)) return undefined;
  const auth = raw === undefined ? undefined : await resolveToken(raw);
  if (!auth) throw unauthorized();
  if (!satisfies(auth.token.scopes, scopes)) throw outsideScopes();
  if (mode === 'user' && !auth.account) throw requiresUser();
  if (auth.account) assertFunctional(auth.account);
  return auth;
}
