// Bearer token to token record, the scope check, and the state of the user behind it.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { sha256 } from '../crypto';
import { accountById, type Account } from '../db/accounts';
import { tokenByHash, type Token } from '../db/tokens';
import { accountDisabled, accountPending, emailUnconfirmed, HttpError, outsideScopes, requiresUser, unauthorized } from '../errors';
import { header } from './header';
import { addressSubject, enforce, exemptFromRateLimits, hit, isApiPath, rateLimitHeaders, throttles, type Budget, type Throttle } from './ratelimit';
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
  // A suspended account's login is not functional either (Mastodon's User#functional?: the account is unavailable).
  if (account.disabled || account.suspendedAt) throw accountDisabled();
}

const plausibleToken = (raw: string) => raw !== '' && raw.length <= 512;

export async function resolveToken(raw: string): Promise<Auth | undefined> {
  if (!plausibleToken(raw)) return undefined;
  const token = await tokenByHash(sha256(raw));
  if (!token) return undefined;
  const account = token.accountId ? await accountById(token.accountId) : undefined;
  if (token.accountId && !account) return undefined;
  return { token, account };
}

// Public endpoints never look at a token; optional ones check it only when one is sent.
const readsToken = (mode: AuthMode, raw: string | undefined) => !(mode === 'public' || (mode === 'optional' && raw === undefined));

/**
 * Authenticates a request for the given mode. In order, as Mastodon: 401 for a
 * missing or invalid token, 403 outside the scopes, 422 for an app token where a
 * user is needed, then 403 for an unconfirmed, pending or disabled login.
 */
function checkAuth(mode: AuthMode, scopes: string[], auth: Auth | undefined, unconfirmed = false): Auth {
  if (!auth) throw unauthorized();
  if (!satisfies(auth.token.scopes, scopes)) throw outsideScopes();
  if (mode === 'user' && !auth.account) throw requiresUser();
  // A login awaiting confirmation (and maybe approval) may still reach the endpoints that confirm it; a disabled one never.
  if (auth.account && unconfirmed && !auth.account.confirmedAt) {
    if (auth.account.disabled) throw accountDisabled();
  } else if (auth.account) assertFunctional(auth.account);
  return auth;
}

export type Admission = { auth: Auth | undefined; budget: Budget | undefined };

/**
 * Counts a request against its rate limits, then authenticates it (Mastodon's
 * throttles run before the app, so a spent budget answers 429 before any 401).
 * On /api, a request with a token is counted per token, in parallel with the
 * token's read; one without a valid token, per address. `route` throttles (sign-
 * ups, app registrations) count every request to the endpoint, per address.
 * Answers the budget with the fewest requests left, for the X-RateLimit headers.
 */
export async function admit(
  mode: AuthMode,
  scopes: string[],
  raw: string | undefined,
  request: { ip: string; path: string; route?: Throttle[]; unconfirmed?: boolean },
): Promise<Admission> {
  const api = isApiPath(request.path);
  const address = addressSubject(request.ip);
  const tokenRead = readsToken(mode, raw);
  if (exemptFromRateLimits(request.ip)) {
    return { auth: tokenRead ? checkAuth(mode, scopes, raw !== undefined ? await resolveToken(raw) : undefined, request.unconfirmed) : undefined, budget: undefined };
  }
  const byAccount = (request.route ?? []).filter((throttle) => throttle.per === 'account');
  const [routeBudgets, auth, tokenBudget] = await Promise.all([
    Promise.all((request.route ?? []).filter((throttle) => throttle.per !== 'account').map((throttle) => hit(throttle, address))),
    tokenRead && raw !== undefined ? resolveToken(raw) : undefined,
    tokenRead && api && raw !== undefined && plausibleToken(raw) ? hit(throttles.apiToken, sha256(raw)) : undefined,
  ]);
  // A token that is not one counts as no token: its requests come out of the address's budget.
  const general = auth ? tokenBudget : api ? await hit(throttles.apiAddress, address) : undefined;
  const budget = enforce([...routeBudgets, general]);
  let admitted: Auth | undefined;
  try {
    admitted = tokenRead ? checkAuth(mode, scopes, auth, request.unconfirmed) : undefined;
  } catch (err) {
    // A refused token still spent a request: the 401 or 403 tells what is left, as every API answer does.
    if (err instanceof HttpError && budget) throw new HttpError(err.status, err.message, err.extra, { ...rateLimitHeaders(budget), ...err.headers });
    throw err;
  }
  // An endpoint's per-account throttles (uploads, deletes) count once the account is known.
  const account = admitted?.account;
  if (!account || byAccount.length === 0) return { auth: admitted, budget };
  const accountBudgets = await Promise.all(byAccount.map((throttle) => hit(throttle, `account:${account.id}`)));
  return { auth: admitted, budget: enforce([...routeBudgets, general, ...accountBudgets]) };
}
