// The authorization endpoint (RFC 6749 section 4.1.1): validates the request as
// Doorkeeper's pre-authorization does, then walks the browser through login,
// approval and the redirect back to the client with a code.
import { z } from 'zod';
import { sha256 } from '../crypto';
import type { Account } from '../db/accounts';
import { appByClientId, type App } from '../db/apps';
import { saveAuthCode } from '../db/tokens';
import { html, redirect, type Reply } from '../http/reply';
import { booleanish } from '../schema';
import { secretToken } from '../ids';
import { DESCRIPTIONS, missingParam, type OAuthErrorCode } from './errors';
import { checkLogin, recordSignInLater } from './login';
import { approvalPage, codePage, deniedPage, errorPage, forbiddenPage, loginPage } from './pages';
import { CODE_CHALLENGE_METHODS, isPkceValue } from './pkce';
import { formActionSource, isOob, isRegisteredRedirect, withQuery } from './redirect';
import { requestedScopes } from './scopes';
import { currentSession, loginCsrf, loginCsrfValid, oauthPath, sessionCsrfValid, startSession, type SignedIn } from './session';

const str = (max: number) => z.string().max(max).optional();

/** The parameters of an authorization request, in the query (GET) or carried in the forms' hidden fields (POST). */
export const authorizeParams = z.object({
  response_type: str(100),
  response_mode: str(100),
  client_id: str(200),
  redirect_uri: str(2000),
  scope: z.union([z.string().max(1000), z.array(z.string().max(100)).max(50)]).optional(),
  state: str(4096),
  code_challenge: str(200),
  code_challenge_method: str(100),
});

/** The form fields of the login and approval forms. */
const submitFields = z.object({
  email: str(320),
  password: str(1000),
  csrf_token: str(200),
  decision: str(20),
});

export type PreAuth = {
  app: App;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
};

type Failure = { error: OAuthErrorCode; description: string; status: number };

const fail = (error: OAuthErrorCode, description: string = DESCRIPTIONS[error]): { ok: false; failure: Failure } => ({
  ok: false,
  failure: { error, description, status: error === 'invalid_client' ? 401 : 400 },
});

/**
 * Validates an authorization request in Doorkeeper's order. Failures are shown to
 * the user, never redirected: the client and redirect URI are checked first, and
 * Mastodon renders the rest of its authorization errors too.
 */
export async function preAuthorize(input: unknown): Promise<{ ok: true; pre: PreAuth } | { ok: false; failure: Failure }> {
  const parsed = authorizeParams.safeParse(input);
  if (!parsed.success) return fail('invalid_request');
  const p = parsed.data;
  if (!p.client_id) return fail('invalid_request', missingParam('client_id'));
  const app = await appByClientId(p.client_id);
  if (!app) return fail('invalid_client');
  if (!p.redirect_uri || !isRegisteredRedirect(p.redirect_uri, app.redirectUris)) return fail('invalid_redirect_uri');
  if (!p.response_type) return fail('invalid_request', missingParam('response_type'));
  if (p.response_type !== 'code') return fail('unsupported_response_type');
  if (p.response_mode && p.response_mode !== 'query') return fail('unsupported_response_mode');
  const scopes = requestedScopes(p.scope, app);
  if (!scopes) return fail('invalid_scope');
  if (p.code_challenge !== undefined && p.code_challenge !== '') {
    if (!isPkceValue(p.code_challenge)) return fail('invalid_request');
    if (!CODE_CHALLENGE_METHODS.some((method) => method === p.code_challenge_method)) {
      return fail('invalid_code_challenge_method');
    }
  }
  const challenge = p.code_challenge ? p.code_challenge : null;
  return {
    ok: true,
    pre: {
      app,
      redirectUri: p.redirect_uri,
      scopes,
      state: p.state,
      codeChallenge: challenge,
      codeChallengeMethod: challenge ? 'S256' : null,
    },
  };
}

/** Issues a single-use authorization code (10 minutes) and answers its raw value. */
export async function issueAuthorizationCode(pre: Omit<PreAuth, 'state'>, accountId: string): Promise<string> {
  const raw = secretToken();
  await saveAuthCode({
    codeHash: sha256(raw),
    clientId: pre.app.clientId,
    accountId,
    scopes: pre.scopes,
    redirectUri: pre.redirectUri,
    codeChallenge: pre.codeChallenge,
    codeChallengeMethod: pre.codeChallengeMethod,
  });
  return raw;
}

// ---- pages ----

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** Browsers check form-action on the redirect that follows a POST, so the client's redirect target is allowed too. */
const cspFor = (redirectUri?: string) => {
  const target = redirectUri ? formActionSource(redirectUri) : undefined;
  return { 'Content-Security-Policy': `${CSP}; form-action 'self'${target ? ` ${target}` : ''}` };
};

const NO_CACHE = { 'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate' };

const page = (body: string, status = 200, cookies: string[] = [], redirectUri?: string): Reply =>
  html(body, status, { ...NO_CACHE, ...cspFor(redirectUri) }, cookies);

/** The OAuth parameters the forms carry as hidden fields. */
const carried = (pre: PreAuth) => ({
  response_type: 'code',
  client_id: pre.app.clientId,
  redirect_uri: pre.redirectUri,
  scope: pre.scopes.join(' '),
  state: pre.state,
  code_challenge: pre.codeChallenge ?? undefined,
  code_challenge_method: pre.codeChallengeMethod ?? undefined,
});

const authorizeAction = () => `${oauthPath()}/authorize`;

function showLogin(pre: PreAuth, cookies: Record<string, string>, extra: { status?: number; error?: string; notice?: string; email?: string } = {}): Reply {
  const csrf = loginCsrf(cookies);
  const body = loginPage({ action: authorizeAction(), app: pre.app, fields: carried(pre), csrf: csrf.field, ...extra });
  return page(body, extra.status ?? 200, csrf.cookie ? [csrf.cookie] : []);
}

const accountNotice = (account: Account): string | undefined => {
  if (!account.confirmedAt) return 'Your e-mail address is not confirmed yet: the application cannot use your account until you confirm it.';
  if (!account.approved) return 'Your account is awaiting approval: the application cannot use your account until it is approved.';
  return undefined;
};

function showApproval(pre: PreAuth, signedIn: SignedIn, cookies: string[] = []): Reply {
  const switchAccount = new URLSearchParams();
  for (const [k, v] of Object.entries(carried(pre))) if (v) switchAccount.set(k, v);
  switchAccount.set('force_login', 'true');
  const body = approvalPage({
    action: authorizeAction(),
    switchAccountHref: `${authorizeAction()}?${switchAccount.toString()}`,
    app: pre.app,
    account: signedIn.account,
    scopes: pre.scopes,
    fields: carried(pre),
    csrf: signedIn.session.csrf,
    notice: accountNotice(signedIn.account),
  });
  return page(body, 200, cookies, pre.redirectUri);
}

const showFailure = (failure: Failure) => page(errorPage(failure.error, failure.description), failure.status);

/** GET /oauth/authorize: the login form, or the approval page for a signed-in browser. */
export async function showAuthorization(input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const checked = await preAuthorize(input);
  if (!checked.ok) return showFailure(checked.failure);
  const forceLogin = booleanish.safeParse(input.force_login);
  const signedIn = forceLogin.success && forceLogin.data ? undefined : await currentSession(cookies);
  return signedIn ? showApproval(checked.pre, signedIn) : showLogin(checked.pre, cookies);
}

/** POST /oauth/authorize: the login form's submission, or the Authorize / Deny decision. */
export async function submitAuthorization(input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const checked = await preAuthorize(input);
  if (!checked.ok) return showFailure(checked.failure);
  const pre = checked.pre;
  const form = submitFields.safeParse(input);
  if (!form.success) return showFailure({ error: 'invalid_request', description: DESCRIPTIONS.invalid_request, status: 400 });
  const { decision, csrf_token: csrf } = form.data;

  if (decision === undefined) {
    if (!loginCsrfValid(cookies, csrf)) return page(forbiddenPage(), 403);
    const login = await checkLogin(form.data.email, form.data.password);
    if (!login.ok) {
      const error = login.reason === 'disabled' ? 'Your login is currently disabled' : 'Invalid e-mail address or password.';
      return showLogin(pre, cookies, { status: 422, error, email: form.data.email });
    }
    const { session, cookie } = await startSession(cookies, login.account.id);
    await recordSignInLater(login.account.id);
    return showApproval(pre, { session, account: login.account }, [cookie]);
  }

  const signedIn = await currentSession(cookies);
  if (!signedIn) return showLogin(pre, cookies, { notice: 'Your session has expired. Please log in again.' });
  if (!sessionCsrfValid(signedIn.session, csrf)) return page(forbiddenPage(), 403);
  if (decision === 'approve') {
    const code = await issueAuthorizationCode(pre, signedIn.account.id);
    if (isOob(pre.redirectUri)) return page(codePage(code));
    return redirect(withQuery(pre.redirectUri, { code, state: pre.state }));
  }
  if (decision === 'deny') {
    if (isOob(pre.redirectUri)) return page(deniedPage(), 400);
    return redirect(withQuery(pre.redirectUri, { error: 'access_denied', error_description: DESCRIPTIONS.access_denied, state: pre.state }));
  }
  return showFailure({ error: 'invalid_request', description: DESCRIPTIONS.invalid_request, status: 400 });
}
