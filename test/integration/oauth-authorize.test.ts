import { createHash } from 'node:crypto';
import { handler as verify } from '../../functions/apps/verify_credentials';
import { handler as show } from '../../functions/oauth/authorize';
import { handler as submit } from '../../functions/oauth/authorize_submit';
import { handler as token } from '../../functions/oauth/token';
import { handler as signinWorker } from '../../functions/workers/signin';
import { sha256 } from '../../lib/crypto';
import { accountById, updateAccount } from '../../lib/db/accounts';
import { sessionByHash, tokensOfAccount } from '../../lib/db/tokens';
import { registerInlineWorker } from '../../lib/queue';
import { call, type Answer } from '../support/http';
import { anApp, aUser } from '../support/factories';

// This file submits the login form dozens of times from one address; the sign-in limits themselves are tested in ratelimit-*.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

registerInlineWorker('signin', signinWorker);

const CALLBACK = 'https://client.example/callback';
const OOB = 'urn:ietf:wg:oauth:2.0:oob';
const VERIFIER = 'M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

const unescape = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The hidden fields of the page's form, as a browser would submit them. */
const hiddenFields = (html: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) out[unescape(m[1] ?? '')] = unescape(m[2] ?? '');
  return out;
};

/** A cookie jar and the two endpoints, driven the way a browser drives the page. */
class Browser {
  private jar = new Map<string, string>();

  store(res: Answer): Answer {
    for (const line of res.cookies) {
      const [pair = '', ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.jar.delete(name);
      else this.jar.set(name, pair.slice(i + 1).trim());
    }
    return res;
  }

  get cookies() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`);
  }

  cookie(name: string) {
    return this.jar.get(name);
  }

  set(name: string, value: string) {
    this.jar.set(name, value);
  }

  async open(query: Record<string, string>) {
    return this.store(await call(show, { method: 'GET', path: '/oauth/authorize', query, cookies: this.cookies }));
  }

  async submit(form: Record<string, string>) {
    return this.store(await call(submit, { method: 'POST', path: '/oauth/authorize', form, cookies: this.cookies }));
  }

  /** Fills in the login form of `page` and submits it. */
  login(page: Answer, email: string, password: string) {
    return this.submit({ ...hiddenFields(page.text), email, password });
  }

  /** Presses Authorize or Deny on the approval page. */
  decide(page: Answer, decision: 'approve' | 'deny') {
    return this.submit({ ...hiddenFields(page.text), decision });
  }
}

async function aClient(overrides: Parameters<typeof anApp>[0] = {}) {
  const { app, clientSecret } = await anApp({ redirect_uris: `${CALLBACK} ${OOB}`, scopes: 'read write follow push', ...overrides });
  return { app, clientId: app.clientId, clientSecret };
}

async function aLogin(opts: Parameters<typeof aUser>[0] = {}) {
  const user = await aUser(opts);
  return { account: user.account, email: user.account.email ?? '', password: user.password };
}

const params = (clientId: string, extra: Record<string, string> = {}) => ({
  response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'read write', state: 'xyz', ...extra,
});

const isLoginForm = (res: Answer) => /<input type="email" id="email" name="email"/.test(res.text) && /name="password"/.test(res.text);
const isApprovalPage = (res: Answer) => /<button[^>]*value="approve"[^>]*>Authorize<\/button>/.test(res.text) && />Deny<\/button>/.test(res.text);

describe('the authorization code flow', () => {
  it('logs in, approves, redirects with a code and state, and the code buys a working token with PKCE', async () => {
    const { clientId, clientSecret } = await aClient();
    const { account, email, password } = await aLogin();
    const browser = new Browser();

    const form = await browser.open(params(clientId, { code_challenge: CHALLENGE, code_challenge_method: 'S256' }));
    expect(form.status).toBe(200);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(isLoginForm(form)).toBe(true);
    expect(form.text).toContain('Test app');

    const approval = await browser.login(form, email.toUpperCase(), password);
    expect(approval.status).toBe(200);
    expect(isApprovalPage(approval)).toBe(true);
    expect(approval.text).toContain(`@${account.username}@social.example`);
    expect(approval.text).toMatch(/Read all of your account’s data <span class="scope">read<\/span>/);
    expect(approval.text).toMatch(/Change all of your account’s data <span class="scope">write<\/span>/);
    expect(approval.headers['content-security-policy']).toContain("form-action 'self' https://client.example");

    const redirect = await browser.decide(approval, 'approve');
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('xyz');
    const code = location.searchParams.get('code') ?? '';
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const exchanged = await call(token, {
      method: 'POST', path: '/oauth/token',
      form: { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, client_secret: clientSecret, code_verifier: VERIFIER },
    });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.scope).toBe('read write');
    const me = await call(verify, { path: '/api/v1/apps/verify_credentials', token: exchanged.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('Test app');
    const issued = (await tokensOfAccount(account.id)).find((t) => t.clientId === clientId);
    expect(issued?.scopes).toEqual(['read', 'write']);
  });

  it('sets HttpOnly, SameSite=Lax, Secure cookies for the whole site and stores only the session hash', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const form = await browser.open(params(clientId));
    expect(form.cookies).toHaveLength(1);
    expect(form.cookies[0]).toMatch(/^tootless_oauth_csrf=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const approval = await browser.login(form, email, password);
    const sessionCookie = approval.cookies.find((c) => c.startsWith('tootless_oauth_session='));
    expect(sessionCookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure$/);
    const raw = browser.cookie('tootless_oauth_session') ?? '';
    expect(await sessionByHash(sha256(raw))).toBeDefined();
    expect(await sessionByHash(raw)).toBeUndefined();
  });

  it('records the sign-in of a form login', async () => {
    const { clientId } = await aClient();
    const { account, email, password } = await aLogin();
    const browser = new Browser();
    await browser.login(await browser.open(params(clientId)), email, password);
    expect((await accountById(account.id))?.signInCount).toBe(1);
  });

  it('shows the approval page at once to a browser already logged in', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    await browser.login(await browser.open(params(clientId)), email, password);
    const again = await browser.open(params(clientId, { scope: 'read' }));
    expect(isApprovalPage(again)).toBe(true);
    expect(again.text).not.toContain('<span class="scope">write</span>');
  });

  it('shows the login form with force_login even to a logged-in browser, and a new login replaces the session', async () => {
    const { clientId } = await aClient();
    const first = await aLogin();
    const second = await aLogin();
    const browser = new Browser();
    await browser.login(await browser.open(params(clientId)), first.email, first.password);
    const oldSession = browser.cookie('tootless_oauth_session') ?? '';
    const forced = await browser.open(params(clientId, { force_login: 'true' }));
    expect(isLoginForm(forced)).toBe(true);
    const approval = await browser.login(forced, second.email, second.password);
    expect(approval.text).toContain(`@${second.account.username}@`);
    expect(await sessionByHash(sha256(oldSession))).toBeUndefined();
    const redirect = await browser.decide(approval, 'approve');
    const code = new URL(redirect.headers.location ?? '').searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    expect((await tokensOfAccount(second.account.id))).toHaveLength(1);
  });

  it('links the approval page to a force_login login for another account', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    const href = unescape(/href="([^"]*force_login=true[^"]*)"/.exec(approval.text)?.[1] ?? '');
    const url = new URL(href, 'https://social.example');
    expect(url.pathname).toBe('/oauth/authorize');
    const forced = await browser.open(Object.fromEntries(url.searchParams));
    expect(isLoginForm(forced)).toBe(true);
  });

  it('shows the code on a page for the out-of-band redirect URI, and it can be exchanged', async () => {
    const { clientId, clientSecret } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId, { redirect_uri: OOB })), email, password);
    expect(approval.headers['content-security-policy']).toMatch(/form-action 'self'$/);
    const shown = await browser.decide(approval, 'approve');
    expect(shown.status).toBe(200);
    expect(shown.headers.location).toBeUndefined();
    const code = /<code id="code">([^<]+)<\/code>/.exec(shown.text)?.[1] ?? '';
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const exchanged = await call(token, {
      method: 'POST', path: '/oauth/token',
      form: { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: clientId, client_secret: clientSecret },
    });
    expect(exchanged.status).toBe(200);
  });

  it('redirects a denial with access_denied and the state, issuing no code', async () => {
    const { clientId } = await aClient();
    const { account, email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    const denied = await browser.decide(approval, 'deny');
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('code')).toBeNull();
    expect(await tokensOfAccount(account.id)).toHaveLength(1);
  });

  it('shows a denial on a page for the out-of-band redirect URI', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId, { redirect_uri: OOB })), email, password);
    const denied = await browser.decide(approval, 'deny');
    expect(denied.status).toBe(400);
    expect(denied.headers.location).toBeUndefined();
    expect(denied.text).toContain('data-error="access_denied"');
  });

  it('keeps the redirect URI’s own query and leaves out a blank state', async () => {
    const { clientId } = await aClient({ redirect_uris: 'https://client.example/cb?app=1' });
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId, { redirect_uri: 'https://client.example/cb?app=1', state: '' })), email, password);
    const redirect = await browser.decide(approval, 'approve');
    const location = new URL(redirect.headers.location ?? '');
    expect(location.searchParams.get('app')).toBe('1');
    expect(location.searchParams.has('state')).toBe(false);
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('allows a custom-scheme redirect in the form-action policy', async () => {
    const { clientId } = await aClient({ redirect_uris: 'com.example.app://oauth' });
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId, { redirect_uri: 'com.example.app://oauth' })), email, password);
    expect(approval.headers['content-security-policy']).toContain("form-action 'self' com.example.app:");
    const redirect = await browser.decide(approval, 'approve');
    expect(redirect.headers.location).toMatch(/^com\.example\.app:\/\/oauth\?code=[A-Za-z0-9_-]{43}&state=xyz$/);
  });
});

describe('logging in on the authorize page', () => {
  it.each([
    ['a wrong password', (email: string) => [email, 'wrong password']],
    ['an unknown e-mail address', () => ['nobody@example.com', 'correct horse battery staple']],
    ['an empty password', (email: string) => [email, '']],
  ])('re-shows the form for %s with the same error and no session', async (_name, creds) => {
    const { clientId } = await aClient();
    const { account, email } = await aLogin();
    const browser = new Browser();
    const form = await browser.open(params(clientId));
    const [address = '', password = ''] = creds(email);
    const again = await browser.login(form, address, password);
    expect(again.status).toBe(422);
    expect(isLoginForm(again)).toBe(true);
    expect(again.text).toContain('Invalid e-mail address or password.');
    expect(browser.cookie('tootless_oauth_session')).toBeUndefined();
    expect((await accountById(account.id))?.signInCount).toBe(0);
  });

  it('refuses a disabled account', async () => {
    const { clientId } = await aClient();
    const { account, email, password } = await aLogin();
    await updateAccount(account.id, { disabled: true });
    const browser = new Browser();
    const again = await browser.login(await browser.open(params(clientId)), email, password);
    expect(again.status).toBe(422);
    expect(again.text).toContain('Your login is currently disabled');
    expect(browser.cookie('tootless_oauth_session')).toBeUndefined();
  });

  it('no longer honours the session of an account disabled since', async () => {
    const { clientId } = await aClient();
    const { account, email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    await updateAccount(account.id, { disabled: true });
    expect(isLoginForm(await browser.open(params(clientId)))).toBe(true);
    const decided = await browser.decide(approval, 'approve');
    expect(decided.headers.location).toBeUndefined();
    expect(isLoginForm(decided)).toBe(true);
  });

  it('lets an unconfirmed account authorize, and tells it the app will not work until it confirms', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin({ confirmed: false });
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    expect(isApprovalPage(approval)).toBe(true);
    expect(approval.text).toContain('Your e-mail address is not confirmed yet');
  });

  it.each([
    ['no CSRF cookie', (b: Browser) => b.set('tootless_oauth_csrf', ''), (f: Record<string, string>) => f],
    ['a different CSRF cookie', (b: Browser) => b.set('tootless_oauth_csrf', 'A'.repeat(43)), (f: Record<string, string>) => f],
    ['no CSRF field', () => undefined, (f: Record<string, string>) => ({ ...f, csrf_token: '' })],
    ['the raw cookie value as the field', (b: Browser) => b.set('tootless_oauth_csrf', 'B'.repeat(43)), (f: Record<string, string>) => ({ ...f, csrf_token: 'B'.repeat(43) })],
  ])('refuses a login with %s with 403 and creates no session', async (_name, tamper, edit) => {
    const { clientId } = await aClient();
    const { account, email, password } = await aLogin();
    const browser = new Browser();
    const form = await browser.open(params(clientId));
    tamper(browser);
    const res = await browser.submit(edit({ ...hiddenFields(form.text), email, password }));
    expect(res.status).toBe(403);
    expect(res.text).toContain('data-error="invalid_authenticity_token"');
    expect(browser.cookie('tootless_oauth_session')).toBeUndefined();
    expect((await accountById(account.id))?.signInCount).toBe(0);
  });
});

describe('approving on the authorize page', () => {
  it.each([
    ['a missing CSRF token', (f: Record<string, string>) => ({ ...f, csrf_token: '' })],
    ['another CSRF token', (f: Record<string, string>) => ({ ...f, csrf_token: 'x'.repeat(43) })],
  ])('refuses %s with 403 and issues no code', async (_name, edit) => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    const res = await browser.submit(edit({ ...hiddenFields(approval.text), decision: 'approve' }));
    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });

  it("refuses the CSRF token of another browser's session", async () => {
    const { clientId } = await aClient();
    const a = await aLogin();
    const b = await aLogin();
    const alice = new Browser();
    const bob = new Browser();
    await alice.login(await alice.open(params(clientId)), a.email, a.password);
    const bobsPage = await bob.login(await bob.open(params(clientId)), b.email, b.password);
    const res = await alice.submit({ ...hiddenFields(bobsPage.text), decision: 'approve' });
    expect(res.status).toBe(403);
  });

  it('asks to log in again when the decision arrives without a session', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    const stranger = new Browser();
    const res = await stranger.submit({ ...hiddenFields(approval.text), decision: 'approve' });
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(isLoginForm(res)).toBe(true);
    expect(res.text).toContain('Your session has expired');
  });

  it('refuses a decision whose hidden scope was raised beyond the app, issuing no code', async () => {
    const { clientId } = await aClient({ scopes: 'read' });
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId, { scope: 'read' })), email, password);
    const res = await browser.submit({ ...hiddenFields(approval.text), scope: 'read write', decision: 'approve' });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('data-error="invalid_scope"');
  });

  it('refuses an unknown decision', async () => {
    const { clientId } = await aClient();
    const { email, password } = await aLogin();
    const browser = new Browser();
    const approval = await browser.login(await browser.open(params(clientId)), email, password);
    const res = await browser.submit({ ...hiddenFields(approval.text), decision: 'maybe' });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });
});

describe('bad authorization requests', () => {
  it.each([
    ['an unregistered redirect_uri', (id: string) => params(id, { redirect_uri: 'https://evil.example/callback' }), 400, 'invalid_redirect_uri'],
    ['a redirect_uri that only starts like a registered one', (id: string) => params(id, { redirect_uri: `${CALLBACK}/more` }), 400, 'invalid_redirect_uri'],
    ['no redirect_uri', (id: string) => params(id, { redirect_uri: '' }), 400, 'invalid_redirect_uri'],
    ['an unknown client', () => params('unknown'), 401, 'invalid_client'],
    ['no client_id', () => params(''), 400, 'invalid_request'],
    ['no response_type', (id: string) => params(id, { response_type: '' }), 400, 'invalid_request'],
    ['response_type token', (id: string) => params(id, { response_type: 'token' }), 400, 'unsupported_response_type'],
    ['response_mode fragment', (id: string) => params(id, { response_mode: 'fragment' }), 400, 'unsupported_response_mode'],
    ['a scope beyond the app', (id: string) => params(id, { scope: 'read admin:read' }), 400, 'invalid_scope'],
    ['an unknown scope', (id: string) => params(id, { scope: 'read everything' }), 400, 'invalid_scope'],
    ['the plain PKCE method', (id: string) => params(id, { code_challenge: CHALLENGE, code_challenge_method: 'plain' }), 400, 'invalid_code_challenge_method'],
    ['a challenge without its method', (id: string) => params(id, { code_challenge: CHALLENGE }), 400, 'invalid_code_challenge_method'],
    ['a malformed challenge', (id: string) => params(id, { code_challenge: 'short', code_challenge_method: 'S256' }), 400, 'invalid_request'],
    ['an oversized state', (id: string) => params(id, { state: 's'.repeat(5000) }), 400, 'invalid_request'],
  ])('shows an error page for %s, redirecting nowhere', async (_name, build, status, error) => {
    const { clientId } = await aClient({ scopes: 'read write' });
    const browser = new Browser();
    const res = await browser.open(build(clientId));
    expect(res.status).toBe(status);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain(`data-error="${error}"`);
    expect(isLoginForm(res)).toBe(false);
    expect(res.cookies).toEqual([]);
  });

  it('accepts a plus-separated scope from a query string', async () => {
    const { clientId } = await aClient();
    const res = await call(show, { path: '/oauth/authorize', query: `response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(CALLBACK)}&scope=read+write+follow` });
    expect(res.status).toBe(200);
    expect(hiddenFields(res.text).scope).toBe('read write follow');
  });

  it('defaults the scope to read', async () => {
    const { clientId } = await aClient();
    const res = await call(show, { path: '/oauth/authorize', query: { response_type: 'code', client_id: clientId, redirect_uri: CALLBACK } });
    expect(hiddenFields(res.text).scope).toBe('read');
  });

  it('answers wrong parameter types on an error page', async () => {
    const { clientId } = await aClient();
    const res = await call(show, { path: '/oauth/authorize', query: { response_type: 'code', client_id: [clientId, clientId], redirect_uri: CALLBACK } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('data-error="invalid_request"');
  });

  it('answers a malformed form body with a 4xx error', async () => {
    const res = await call(submit, { method: 'POST', path: '/oauth/authorize', body: { data: '{"client_id":', contentType: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('HTML escaping', () => {
  it('escapes a malicious application name, website and state', async () => {
    const { clientId } = await aClient({ client_name: '<script>alert(1)</script>', website: 'https://x.example/"><script>alert(2)</script>' });
    const { email, password } = await aLogin();
    const browser = new Browser();
    const state = '"><script>alert(3)</script>';
    const form = await browser.open(params(clientId, { state }));
    expect(form.status).toBe(200);
    expect(form.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(form.text).not.toMatch(/<script/i);
    expect(hiddenFields(form.text).state).toBe(state);
    const approval = await browser.login(form, email, password);
    expect(approval.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(approval.text).not.toMatch(/<script/i);
    const redirect = await browser.decide(approval, 'approve');
    expect(new URL(redirect.headers.location ?? '').searchParams.get('state')).toBe(state);
  });

  it('escapes an error page’s values and sets a strict content security policy', async () => {
    const res = await call(show, { path: '/oauth/authorize', query: { client_id: '<img src=x onerror=alert(1)>' } });
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('<img');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toMatch(/no-store/);
  });
});
