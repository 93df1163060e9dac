// The strike page a warned account opens from its notification or e-mail (Mastodon's /disputes/strikes/:id): the
// strike, and the appeal form while it may appeal. Plain HTML forms working without JavaScript, on the OAuth
// pages' HTML helpers and sessions; its session cookie is scoped to /disputes (lib/oauth/session.ts), so the
// OAuth login's own cookie is untouched. Every POST carries a CSRF token: the login form's double-submit token
// before sign-in, the session's token after.
import { html, type Reply } from '../http/reply';
import { checkLogin, recordSignInLater } from '../oauth/login';
import { strikeLoginPage, strikePage } from '../oauth/pages';
import { currentSession, disputesPath, loginCsrf, loginCsrfValid, sessionCsrfValid, startSession } from '../oauth/session';
import { appealStrike, mayAppeal, ownStrike } from './strikes';
import { HttpError } from '../errors';
import type { Strike } from '../db/strikes';

const HEADERS = {
  'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
};

const pageOf = (id: string) => `${disputesPath()}/strikes/${id}`;

const view = (s: Strike) => ({ id: s.id, action: s.action, text: s.text, createdAt: s.createdAt, appeal: s.appeal ? { text: s.appeal.text, state: s.appeal.state } : null, mayAppeal: mayAppeal(s) });

function loginReply(id: string, cookies: Record<string, string>, status = 200, extra: { email?: string; error?: string } = {}): Reply {
  const csrf = loginCsrf(cookies);
  return html(strikeLoginPage({ action: pageOf(id), csrf: csrf.field, ...extra }), status, HEADERS, csrf.cookie ? [csrf.cookie] : []);
}

/** GET: the strike for its signed-in account, the sign-in form otherwise; 404 for a strike of someone else. */
export async function showDispute(id: string, cookies: Record<string, string>): Promise<Reply> {
  const signedIn = await currentSession(cookies);
  if (!signedIn) return loginReply(id, cookies);
  const strike = await ownStrike(signedIn.account, id);
  return html(strikePage({ action: pageOf(id), csrf: signedIn.session.csrf, strike: view(strike) }), 200, HEADERS);
}

const field = (input: Record<string, unknown>, name: string): string | undefined => (typeof input[name] === 'string' ? (input[name] as string) : undefined);

/** The appeal text, sent as `appeal[text]` (Mastodon's form) however the body parser nested it. */
function appealText(input: Record<string, unknown>): string | undefined {
  const flat = field(input, 'appeal[text]');
  if (flat !== undefined) return flat;
  const nested = input.appeal;
  return nested && typeof nested === 'object' && typeof (nested as Record<string, unknown>).text === 'string' ? ((nested as Record<string, unknown>).text as string) : undefined;
}

/** POST: the sign-in form (e-mail and password), or the appeal form of a signed-in account. */
export async function submitDispute(id: string, input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const signedIn = await currentSession(cookies);
  if (!signedIn || input.email !== undefined) {
    if (!loginCsrfValid(cookies, input.csrf_token)) return loginReply(id, cookies, 403, { error: 'This form has expired: please try again.' });
    const result = await checkLogin(field(input, 'email'), field(input, 'password'));
    if (!result.ok) return loginReply(id, cookies, 422, { email: field(input, 'email'), error: 'Invalid e-mail address or password.' });
    await ownStrike(result.account, id);
    await recordSignInLater(result.account.id);
    const { session, cookie } = await startSession(cookies, result.account.id);
    const strike = await ownStrike(result.account, id);
    return html(strikePage({ action: pageOf(id), csrf: session.csrf, strike: view(strike) }), 200, HEADERS, [cookie]);
  }
  const strike = await ownStrike(signedIn.account, id);
  if (!sessionCsrfValid(signedIn.session, input.csrf_token)) {
    return html(strikePage({ action: pageOf(id), csrf: signedIn.session.csrf, strike: view(strike), error: 'This form has expired: please try again.' }), 403, HEADERS);
  }
  try {
    const appealed = await appealStrike(signedIn.account, id, appealText(input) ?? '');
    return html(strikePage({ action: pageOf(id), csrf: signedIn.session.csrf, strike: view(appealed), notice: 'Your appeal has been submitted.' }), 200, HEADERS);
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 422) throw err;
    return html(strikePage({ action: pageOf(id), csrf: signedIn.session.csrf, strike: view(strike), error: err.message }), 422, HEADERS);
  }
}
