// Signing in to the moderation pages: the e-mail and password form, the same login check and session as the
// authorize page (lib/oauth/login.ts, lib/oauth/session.ts), then back to the page that asked. Anyone may sign in;
// the pages themselves answer 403 to an account whose role lacks their permission.
import { z } from 'zod';
import type { Reply } from '../http/reply';
import { redirect } from '../http/reply';
import { checkLogin, recordSignInLater } from '../oauth/login';
import { currentSession, endSession, loginCsrf, loginCsrfValid, sessionCsrfValid, startSession } from '../oauth/session';
import { isReturnPath } from './access';
import { adminPage, adminPath, esc, messagePage } from './layout';

const form = z.object({
  email: z.string().max(320).optional(),
  password: z.string().max(1000).optional(),
  csrf_token: z.string().max(200).optional(),
  return_to: z.string().max(500).optional(),
});

const returnPath = (value: unknown) => (isReturnPath(value) ? value : '/reports');

function signInForm(cookies: Record<string, string>, returnTo: string, extra: { status?: number; error?: string; email?: string } = {}): Reply {
  const csrf = loginCsrf(cookies);
  const body = `
${extra.error ? `<p class="error" role="alert" id="error">${esc(extra.error)}</p>` : ''}
<form method="post" action="${esc(adminPath('/sign_in'))}">
<input type="hidden" name="csrf_token" value="${esc(csrf.field)}">
<input type="hidden" name="return_to" value="${esc(returnTo)}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" value="${esc(extra.email)}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>`;
  return adminPage(undefined, 'Sign in to moderate', body, extra.status ?? 200, csrf.cookie ? [csrf.cookie] : []);
}

/** GET /admin/sign_in: the form, or straight back for a browser already signed in. */
export async function showSignIn(input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const returnTo = returnPath(input.return_to);
  if (await currentSession(cookies)) return redirect(adminPath(returnTo));
  return signInForm(cookies, returnTo);
}

/** POST /admin/sign_in: checks the login, starts the session, sends the browser back (303). */
export async function submitSignIn(input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const parsed = form.safeParse(input);
  const fields = parsed.success ? parsed.data : {};
  const returnTo = returnPath(fields.return_to);
  if (!loginCsrfValid(cookies, fields.csrf_token)) {
    return messagePage(undefined, 403, 'Request refused', 'The form has expired or did not come from this site. Go back, reload the page and try again.', adminPath(`/sign_in?return_to=${encodeURIComponent(returnTo)}`));
  }
  const login = await checkLogin(fields.email, fields.password);
  if (!login.ok) {
    const error = login.reason === 'disabled' ? 'Your login is currently disabled' : 'Invalid e-mail address or password.';
    return signInForm(cookies, returnTo, { status: 422, error, email: fields.email });
  }
  const { cookie } = await startSession(cookies, login.account.id);
  await recordSignInLater(login.account.id);
  return redirect(adminPath(returnTo), [cookie], 303);
}

/** POST /admin/sign_out: ends the session (its CSRF token required, so no other site can sign a moderator out). */
export async function signOut(input: Record<string, unknown>, cookies: Record<string, string>): Promise<Reply> {
  const signedIn = await currentSession(cookies);
  if (signedIn && !sessionCsrfValid(signedIn.session, input.csrf_token)) {
    return messagePage(undefined, 403, 'Request refused', 'The form has expired or did not come from this site. Go back, reload the page and try again.');
  }
  return redirect(adminPath('/sign_in'), [await endSession(cookies)], 303);
}

