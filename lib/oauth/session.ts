// The browser's login state, shared by the authorize page and the moderation pages under /admin: a login
// session (cookie holds a random value, the table its SHA-256) and the CSRF tokens of their forms. The cookies
// cover the whole site (its base path), so that one sign-in serves both.
import { config } from '../config';
import { hmac, safeEqual, sha256 } from '../crypto';
import { accountById, type Account } from '../db/accounts';
import { deleteSession, saveSession, sessionByHash, type Session } from '../db/tokens';
import { secretToken } from '../ids';
import { secrets } from '../secrets';

export const SESSION_COOKIE = 'tootless_oauth_session';
export const LOGIN_CSRF_COOKIE = 'tootless_oauth_csrf';
const SESSION_MAX_AGE = 60 * 60 * 24 * 7;

/** The path prefix of the OAuth routes under BASE_URL (empty unless the API sits under a base path). */
export const oauthPath = () => `${basePath()}/oauth`;

/** BASE_URL's path without its trailing slash: empty unless the API sits under a base path. */
export const basePath = () => new URL(config.baseUrl).pathname.replace(/\/+$/, '');

/** The cookies' Path: the whole site, /oauth and /admin alike. */
const cookiePath = () => basePath() || '/';

/** The path of the strike (dispute) pages, which share the site's session. */
export const disputesPath = () => `${basePath()}/disputes`;

const cookie = (name: string, value: string, maxAge?: number) =>
  [
    `${name}=${value}`,
    `Path=${cookiePath()}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(maxAge === undefined ? [] : [`Max-Age=${maxAge}`]),
    ...(config.baseUrl.startsWith('https:') ? ['Secure'] : []),
  ].join('; ');

const cookieValue = (cookies: Record<string, string>, name: string): string | undefined => {
  const value = cookies[name];
  return value && /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
};

export type SignedIn = { session: Session; account: Account };

/** The signed-in account of a request, if its session is live and the account may still log in. */
export async function currentSession(cookies: Record<string, string>): Promise<SignedIn | undefined> {
  const raw = cookieValue(cookies, SESSION_COOKIE);
  if (!raw) return undefined;
  const session = await sessionByHash(sha256(raw));
  if (!session) return undefined;
  const account = await accountById(session.accountId);
  if (!account || account.disabled || account.suspendedAt) return undefined;
  return { session, account };
}

/** Ends the browser's session (signing out); answers the cookie that clears it. */
export async function endSession(cookies: Record<string, string>): Promise<string> {
  const raw = cookieValue(cookies, SESSION_COOKIE);
  if (raw) await deleteSession(sha256(raw));
  return cookie(SESSION_COOKIE, '', 0);
}

/** Starts a session for a fresh login; any previous session of this browser ends (no fixation). */
export async function startSession(cookies: Record<string, string>, accountId: string): Promise<{ session: Session; cookie: string }> {
  const previous = cookieValue(cookies, SESSION_COOKIE);
  if (previous) await deleteSession(sha256(previous));
  const raw = secretToken();
  const session = await saveSession({ sessionHash: sha256(raw), accountId, csrf: secretToken() });
  return { session, cookie: cookie(SESSION_COOKIE, raw, SESSION_MAX_AGE) };
}

/**
 * The login form's double-submit token: a random value in an HttpOnly cookie and,
 * in the form, its HMAC under the server secret, so that a cookie planted by a
 * sibling domain cannot be paired with a field the attacker computed.
 */
const loginFieldFor = (cookieRaw: string) => hmac(secrets().secretKeyBase, `oauth-login-csrf:${cookieRaw}`);

export function loginCsrf(cookies: Record<string, string>): { field: string; cookie?: string } {
  const existing = cookieValue(cookies, LOGIN_CSRF_COOKIE);
  if (existing) return { field: loginFieldFor(existing) };
  const raw = secretToken();
  return { field: loginFieldFor(raw), cookie: cookie(LOGIN_CSRF_COOKIE, raw, undefined) };
}

export function loginCsrfValid(cookies: Record<string, string>, field: unknown): boolean {
  const raw = cookieValue(cookies, LOGIN_CSRF_COOKIE);
  return raw !== undefined && typeof field === 'string' && safeEqual(field, loginFieldFor(raw));
}

export const sessionCsrfValid = (session: Session, field: unknown): boolean =>
  typeof field === 'string' && field !== '' && safeEqual(field, session.csrf);
