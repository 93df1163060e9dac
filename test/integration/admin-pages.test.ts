// The moderation pages under /admin, each through its real handler with a browser's cookie jar: without a
// session a page sends the browser to the sign-in form (and back afterwards), a signed-in account whose role
// lacks the page's permission gets a 403 page, a moderator gets the page; every form refuses a POST without the
// session's CSRF token or with a wrong one; each action shows in the table and in the audit log; and what
// accounts and reporters wrote is shown escaped.
import { handler as accountShow } from '../../functions/admin_pages/account';
import { handler as accountSubmit } from '../../functions/admin_pages/account_submit';
import { handler as accountsSearch } from '../../functions/admin_pages/accounts';
import { handler as actionLogs } from '../../functions/admin_pages/action_logs';
import { handler as home } from '../../functions/admin_pages/home';
import { handler as domainBlocks } from '../../functions/admin_pages/domain_blocks';
import { handler as pending } from '../../functions/admin_pages/pending_accounts';
import { handler as pendingSubmit } from '../../functions/admin_pages/pending_accounts_submit';
import { handler as reportShow } from '../../functions/admin_pages/report';
import { handler as reportSubmit } from '../../functions/admin_pages/report_submit';
import { handler as reports } from '../../functions/admin_pages/reports';
import { handler as signIn } from '../../functions/admin_pages/sign_in';
import { handler as signInSubmit } from '../../functions/admin_pages/sign_in_submit';
import { handler as signOut } from '../../functions/admin_pages/sign_out';
import { handler as createReport } from '../../functions/reports/create';
import { handler as authorize } from '../../functions/oauth/authorize';
import { handler as authorizeSubmit } from '../../functions/oauth/authorize_submit';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as signinWorker } from '../../functions/workers/signin';
import { accountById, accountByUsername, setRole, updateAccount, type Account } from '../../lib/db/accounts';
import { auditLogPage, type AuditEntry } from '../../lib/db/audit_log';
import { reportById } from '../../lib/db/reports';
import { registerInlineWorker } from '../../lib/queue';
import { anApp, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

registerInlineWorker('signin', signinWorker);
// This file signs in many times from one address; the sign-in limits are tested in ratelimit-signin.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';

type Handler = Parameters<typeof call>[0];

const unescape = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The first value of a hidden field of the page. */
const field = (html: string, name: string): string | undefined => {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return m ? unescape(m[1]!) : undefined;
};

/** A browser: a cookie jar, and requests to the handlers as it would send them. */
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

  async get(handler: Handler, path: string, opts: { query?: Record<string, string>; id?: string } = {}) {
    return this.store(await call(handler, { method: 'GET', path, query: opts.query, pathParameters: opts.id ? { id: opts.id } : undefined, cookies: this.cookies }));
  }

  async post(handler: Handler, path: string, form: Record<string, string>, id?: string) {
    return this.store(await call(handler, { method: 'POST', path, form, pathParameters: id ? { id } : undefined, cookies: this.cookies }));
  }

  /** Signs in through the form; answers the form's answer (a 303 back to `returnTo` when it worked). */
  async signIn(user: UserFixture, returnTo = '/reports', password = user.password) {
    const form = await this.get(signIn, '/admin/sign_in', { query: { return_to: returnTo } });
    expect(form.status).toBe(200);
    return this.post(signInSubmit, '/admin/sign_in', {
      csrf_token: field(form.text, 'csrf_token') ?? '',
      return_to: field(form.text, 'return_to') ?? '',
      email: user.account.email ?? '',
      password,
    });
  }
}

/** A signed-in browser of a user with the given role ('1' Moderator, '2' Admin, null none). */
async function signedIn(roleId: string | null): Promise<{ browser: Browser; user: UserFixture }> {
  const user = await aUser();
  if (roleId) user.account = (await setRole(user.account.id, roleId, false))!;
  const browser = new Browser();
  expect((await browser.signIn(user)).status).toBe(303);
  return { browser, user };
}

/** The session's CSRF token, as the page's forms carry it. */
const csrfOf = (page: Answer) => field(page.text, 'csrf_token') ?? '';

/** The audit log's entries by a moderator, newest first. */
const loggedBy = async (moderator: Account): Promise<AuditEntry[]> => (await auditLogPage({ limit: 200 })).filter((e) => e.accountId === moderator.id);

async function aReport(reporter: UserFixture, target: Account, comment = 'spam, all of it', statusIds: string[] = []) {
  const res = await call(createReport, { method: 'POST', path: '/api/v1/reports', json: { account_id: target.id, comment, category: 'spam', status_ids: statusIds }, token: reporter.token });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

let moderator: { browser: Browser; user: UserFixture };
let admin: { browser: Browser; user: UserFixture };
let member: { browser: Browser; user: UserFixture };

beforeAll(async () => {
  [moderator, admin, member] = await Promise.all([signedIn('1'), signedIn('2'), signedIn(null)]);
});

describe('access to the pages', () => {
  const pages: [string, Handler, string, string | undefined][] = [
    ['the report queue', reports, '/admin/reports', undefined],
    ['the account search', accountsSearch, '/admin/accounts', undefined],
    ['pending sign-ups', pending, '/admin/pending_accounts', undefined],
    ['the audit log', actionLogs, '/admin/action_logs', undefined],
  ];

  it.each(pages)('sends a browser without a session from %s to the sign-in form, with the way back', async (_name, handler, path) => {
    const res = await new Browser().get(handler, path);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location!, 'https://social.example');
    expect(location.pathname).toBe('/admin/sign_in');
    expect(location.searchParams.get('return_to')).toBe(path.replace('/admin', ''));
  });

  it.each(pages)('answers 403 (a page) on %s to a signed-in account without a role', async (_name, handler, path) => {
    const res = await member.browser.get(handler, path);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Access denied');
  });

  it.each(pages)('shows %s to a moderator, with a strict policy: no script, no framing', async (_name, handler, path) => {
    const res = await moderator.browser.get(handler, path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = res.headers['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
    expect(res.text).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it('sends /admin to the first page the role may open, to the sign-in form without a session, and 403 without a role', async () => {
    expect((await moderator.browser.get(home, '/admin')).headers.location).toBe('/admin/reports');
    expect((await new Browser().get(home, '/admin')).headers.location).toBe('/admin/sign_in?return_to=%2Freports');
    expect((await member.browser.get(home, '/admin')).status).toBe(403);
  });

  it('keeps the domain blocks to roles that manage federation: 403 for a moderator, the page for an admin', async () => {
    expect((await moderator.browser.get(domainBlocks, '/admin/domain_blocks')).status).toBe(403);
    expect((await admin.browser.get(domainBlocks, '/admin/domain_blocks')).status).toBe(200);
  });

  it('signs in with the session cookie for the whole site, and brings the browser back to the page it asked for', async () => {
    const user = await aUser();
    await setRole(user.account.id, '1', false);
    const browser = new Browser();
    const res = await browser.signIn(user, '/reports?resolved=1');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/reports?resolved=1');
    expect(res.cookies.find((c) => c.startsWith('tootless_oauth_session='))).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure$/);
    expect((await browser.get(reports, '/admin/reports', { query: { resolved: '1' } })).status).toBe(200);
  });

  it('takes the session of a sign-in on the authorize page: one sign-in serves both', async () => {
    const user = await aUser();
    await setRole(user.account.id, '1', false);
    const { app } = await anApp();
    const browser = new Browser();
    const query = { response_type: 'code', client_id: app.clientId, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scope: 'read' };
    const login = browser.store(await call(authorize, { method: 'GET', path: '/oauth/authorize', query, cookies: browser.cookies }));
    const approval = browser.store(await call(authorizeSubmit, {
      method: 'POST', path: '/oauth/authorize', cookies: browser.cookies,
      form: { ...query, csrf_token: field(login.text, 'csrf_token') ?? '', email: user.account.email!, password: user.password },
    }));
    expect(approval.status).toBe(200);
    // Its cookie is sent to /admin too (a browser sends a cookie only under its Path).
    expect(approval.cookies.find((c) => c.startsWith('tootless_oauth_session='))).toContain('; Path=/;');
    expect((await browser.get(reports, '/admin/reports')).status).toBe(200);
  });

  it('sends the browser back only to a page of its own, never elsewhere', async () => {
    for (const elsewhere of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const res = await moderator.browser.get(signIn, '/admin/sign_in', { query: { return_to: elsewhere } });
      // Signed in already: straight back, to the queue instead of the foreign address.
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/admin/reports');
    }
  });

  it('refuses a wrong password with the form again, and a sign-in without the form\'s token', async () => {
    const user = await aUser();
    const browser = new Browser();
    const wrong = await browser.signIn(user, '/reports', 'not the password');
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('Invalid e-mail address or password.');
    const forged = await new Browser().post(signInSubmit, '/admin/sign_in', { email: user.account.email!, password: user.password, return_to: '/reports' });
    expect(forged.status).toBe(403);
    expect(forged.cookies.some((c) => c.startsWith('tootless_oauth_session='))).toBe(false);
  });

  it('signs out with the session\'s token (and not without it)', async () => {
    const { browser } = await signedIn('1');
    const page = await browser.get(reports, '/admin/reports');
    expect((await browser.post(signOut, '/admin/sign_out', { csrf_token: 'wrong' })).status).toBe(403);
    expect((await browser.get(reports, '/admin/reports')).status).toBe(200);
    const out = await browser.post(signOut, '/admin/sign_out', { csrf_token: csrfOf(page) });
    expect(out.status).toBe(303);
    expect((await browser.get(reports, '/admin/reports')).status).toBe(302);
  });
});

describe('the report queue and a report', () => {
  it('lists an open report with its target, reporter, comment, category and statuses, escaped, and the statuses on the report\'s page', async () => {
    const [reporter, target] = await Promise.all([aUser(), aUser()]);
    await updateAccount(target.account.id, { displayName: '<script>alert("name")</script>' });
    const status = await aPostedStatus(target.account, { contentHtml: '<p>buy <b>now</b></p><script>alert(1)</script>' });
    const id = await aReport(reporter, target.account, 'look: <img src=x onerror=alert(1)> "quoted"', [status.id]);

    const queue = await moderator.browser.get(reports, '/admin/reports');
    const row = new RegExp(`<tr id="report-${id}">([\\s\\S]*?)</tr>`).exec(queue.text)?.[1] ?? '';
    expect(row).toContain(`@${target.account.username}`);
    expect(row).toContain(`@${reporter.account.username}`);
    expect(row).toContain('spam');
    expect(row).toContain('look: &lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot;');
    expect(row).toMatch(/<td>1<\/td>/);

    const page = await moderator.browser.get(reportShow, `/admin/reports/${id}`, { id });
    expect(page.status).toBe(200);
    expect(page.text).toContain('look: &lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot;');
    expect(page.text).not.toContain('<img src=x');
    // The status's own markup stays (sanitised), its script does not.
    expect(page.text).toContain('buy <b>now</b>');
    expect(page.text).not.toMatch(/<script>alert/);
    expect(page.text).toContain('Unresolved');

    // On the account page the hostile display name is text.
    const account = await moderator.browser.get(accountShow, `/admin/accounts/${target.account.id}`, { id: target.account.id });
    expect(account.text).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(account.text).not.toContain('<script>alert("name")');
  });

  it('refuses a POST without the CSRF token or with a wrong one, changing nothing', async () => {
    const [reporter, target] = await Promise.all([aUser(), aUser()]);
    const id = await aReport(reporter, target.account);
    const before = (await loggedBy(moderator.user.account)).length;
    const forms: Record<string, string>[] = [{ operation: 'resolve' }, { operation: 'resolve', csrf_token: 'not-the-token' }, { operation: 'action', type: 'suspend', csrf_token: '' }];
    for (const form of forms) {
      const res = await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, form, id);
      expect(res.status).toBe(403);
      expect(res.text).toContain('The form has expired or did not come from this site');
    }
    expect((await reportById(id, true))?.actionTakenAt).toBeNull();
    expect((await accountById(target.account.id))?.suspendedAt).toBeNull();
    expect((await loggedBy(moderator.user.account)).length).toBe(before);
    // Without a session, the form sends the browser to sign in.
    const anonymous = await new Browser().post(reportSubmit, `/admin/reports/${id}`, { operation: 'resolve' }, id);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/admin\/sign_in\?return_to=%2Freports%2F/);
  });

  it('suspends the reported account with one click and resolves the report, both in the audit log', async () => {
    const [reporter, target] = await Promise.all([aUser(), aUser()]);
    const id = await aReport(reporter, target.account);
    const page = await moderator.browser.get(reportShow, `/admin/reports/${id}`, { id });
    const res = await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrfOf(page), operation: 'action', type: 'suspend', text: '' }, id);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/admin/reports/${id}?notice=actioned`);

    expect((await accountById(target.account.id))?.suspendedAt).not.toBeNull();
    expect((await reportById(id, true))?.actionTakenAt).not.toBeNull();
    const log = await loggedBy(moderator.user.account);
    expect(log.slice(0, 2).map((e) => [e.action, e.targetType, e.targetId])).toEqual([
      ['resolve', 'Report', id],
      ['suspend', 'Account', target.account.id],
    ]);
    // The suspended account's token is refused.
    expect((await call(verifyCredentials, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token: target.token })).status).toBe(403);

    const after = await moderator.browser.get(reportShow, `/admin/reports/${id}`, { id, query: { notice: 'actioned' } });
    expect(after.text).toMatch(/id="state">Resolved/);
    expect(after.text).toContain('The action was taken and the report resolved.');
    expect(after.text).toContain('Suspended');
    // Off the unresolved tab, on the resolved one.
    expect((await moderator.browser.get(reports, '/admin/reports')).text).not.toContain(`id="report-${id}"`);
    expect((await moderator.browser.get(reports, '/admin/reports', { query: { resolved: '1' } })).text).toContain(`id="report-${id}"`);
  });

  it('resolves and reopens a report without action, each once in the audit log', async () => {
    const [reporter, target] = await Promise.all([aUser(), aUser()]);
    const id = await aReport(reporter, target.account);
    const csrf = csrfOf(await moderator.browser.get(reportShow, `/admin/reports/${id}`, { id }));
    expect((await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrf, operation: 'resolve' }, id)).status).toBe(303);
    expect((await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrf, operation: 'resolve' }, id)).status).toBe(303);
    expect((await reportById(id, true))?.actionTakenAt).not.toBeNull();
    expect((await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrf, operation: 'reopen' }, id)).status).toBe(303);
    expect((await reportById(id, true))?.actionTakenAt).toBeNull();
    expect((await accountById(target.account.id))?.suspendedAt).toBeNull();
    const mine = (await loggedBy(moderator.user.account)).filter((e) => e.targetId === id).map((e) => e.action);
    expect(mine).toEqual(['reopen', 'resolve']);
  });

  it('answers 404 for an unknown report and 422 for an unknown operation', async () => {
    expect((await moderator.browser.get(reportShow, '/admin/reports/123', { id: '123' })).status).toBe(404);
    expect((await moderator.browser.get(reportShow, '/admin/reports/abc', { id: 'abc' })).status).toBe(404);
    const [reporter, target] = await Promise.all([aUser(), aUser()]);
    const id = await aReport(reporter, target.account);
    const csrf = csrfOf(await moderator.browser.get(reportShow, `/admin/reports/${id}`, { id }));
    expect((await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrf, operation: 'explode' }, id)).status).toBe(422);
    expect((await moderator.browser.post(reportSubmit, `/admin/reports/${id}`, { csrf_token: csrf, operation: 'action', type: 'explode' }, id)).status).toBe(422);
  });
});

describe('an account\'s page', () => {
  it('shows its recent statuses and state, limits it and lifts the limit, each in the audit log', async () => {
    const target = await aUser();
    await aPostedStatus(target.account, { contentHtml: '<p>my recent words</p>' });
    const page = await moderator.browser.get(accountShow, `/admin/accounts/${target.account.id}`, { id: target.account.id });
    expect(page.status).toBe(200);
    expect(page.text).toContain('my recent words');
    const csrf = csrfOf(page);
    const limited = await moderator.browser.post(accountSubmit, `/admin/accounts/${target.account.id}`, { csrf_token: csrf, operation: 'action', type: 'silence' }, target.account.id);
    expect(limited.status).toBe(303);
    expect((await accountById(target.account.id))?.silencedAt).not.toBeNull();
    const shown = await moderator.browser.get(accountShow, `/admin/accounts/${target.account.id}`, { id: target.account.id });
    expect(shown.text).toContain('Limited</span>');
    expect(shown.text).toContain('value="unsilence"');
    await moderator.browser.post(accountSubmit, `/admin/accounts/${target.account.id}`, { csrf_token: csrf, operation: 'reverse', reversal: 'unsilence' }, target.account.id);
    expect((await accountById(target.account.id))?.silencedAt).toBeNull();
    const actions = (await loggedBy(moderator.user.account)).filter((e) => e.targetId === target.account.id).map((e) => e.action);
    expect(actions).toEqual(['unsilence', 'silence']);
  });

  it('refuses an action on an account whose role is not below the moderator\'s (403 page), and on itself', async () => {
    const page = await moderator.browser.get(accountShow, `/admin/accounts/${admin.user.account.id}`, { id: admin.user.account.id });
    expect(page.text).toContain('Your role does not allow you to act on this account.');
    for (const target of [admin.user.account, moderator.user.account]) {
      const res = await moderator.browser.post(accountSubmit, `/admin/accounts/${target.id}`, { csrf_token: csrfOf(page), operation: 'action', type: 'suspend' }, target.id);
      expect(res.status).toBe(403);
      expect((await accountById(target.id))?.suspendedAt).toBeNull();
    }
  });

  it('finds accounts by the start of their username', async () => {
    const target = await aUser({ username: `findme_${Date.now().toString(36)}` });
    const res = await moderator.browser.get(accountsSearch, '/admin/accounts', { query: { username: target.account.username.slice(0, 12) } });
    expect(res.text).toContain(`href="/admin/accounts/${target.account.id}"`);
    expect((await moderator.browser.get(accountsSearch, '/admin/accounts', { query: { username: 'nobody_by_this_name_at_all' } })).text).toContain('No account found.');
  });
});

describe('pending sign-ups', () => {
  it('approves one and rejects another (deleted, its username free again), both in the audit log', async () => {
    const [keep, refuse] = await Promise.all([aUser({ approved: false }), aUser({ approved: false })]);
    const page = await moderator.browser.get(pending, '/admin/pending_accounts');
    expect(page.text).toContain(`id="pending-${keep.account.id}"`);
    expect(page.text).toContain(`id="pending-${refuse.account.id}"`);
    const csrf = csrfOf(page);
    const approved = await moderator.browser.post(pendingSubmit, '/admin/pending_accounts', { csrf_token: csrf, operation: 'approve', account_id: keep.account.id });
    expect(approved.headers.location).toBe('/admin/pending_accounts?notice=approved');
    expect((await accountById(keep.account.id))?.approved).toBe(true);
    const rejected = await moderator.browser.post(pendingSubmit, '/admin/pending_accounts', { csrf_token: csrf, operation: 'reject', account_id: refuse.account.id });
    expect(rejected.headers.location).toBe('/admin/pending_accounts?notice=rejected');
    expect(await accountById(refuse.account.id)).toBeUndefined();
    expect(await accountByUsername(refuse.account.username)).toBeUndefined();
    // Its token went with it.
    expect((await call(verifyCredentials, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token: refuse.token })).status).toBe(401);
    const after = await moderator.browser.get(pending, '/admin/pending_accounts');
    expect(after.text).not.toContain(`id="pending-${keep.account.id}"`);
    expect(after.text).not.toContain(`id="pending-${refuse.account.id}"`);
    const log = (await loggedBy(moderator.user.account)).filter((e) => [keep.account.id, refuse.account.id].includes(e.targetId));
    expect(log.map((e) => [e.action, e.targetId])).toEqual([['reject', refuse.account.id], ['approve', keep.account.id]]);
    // An approved account is no longer rejectable.
    const again = await moderator.browser.post(pendingSubmit, '/admin/pending_accounts', { csrf_token: csrf, operation: 'reject', account_id: keep.account.id });
    expect(again.headers.location).toBe('/admin/pending_accounts?notice=gone');
    expect(await accountById(keep.account.id)).toBeDefined();
  });

  it('refuses a POST without the CSRF token', async () => {
    const waiting = await aUser({ approved: false });
    expect((await moderator.browser.post(pendingSubmit, '/admin/pending_accounts', { operation: 'approve', account_id: waiting.account.id })).status).toBe(403);
    expect((await accountById(waiting.account.id))?.approved).toBe(false);
  });
});

// The domain blocks page, with the other pages of federation and sign-up rules: admin-pages-blocks.test.ts.

describe('the audit log page', () => {
  it('shows who did what to which target, newest first', async () => {
    const target = await aUser();
    const csrf = csrfOf(await moderator.browser.get(accountShow, `/admin/accounts/${target.account.id}`, { id: target.account.id }));
    await moderator.browser.post(accountSubmit, `/admin/accounts/${target.account.id}`, { csrf_token: csrf, operation: 'action', type: 'sensitive' }, target.account.id);
    const res = await moderator.browser.get(actionLogs, '/admin/action_logs');
    const row = /<tbody>\s*<tr>([\s\S]*?)<\/tr>/.exec(res.text)?.[1] ?? '';
    expect(row).toContain(`@${moderator.user.account.username}`);
    expect(row).toContain('<td>sensitive</td>');
    expect(row).toContain(`href="/admin/accounts/${target.account.id}">${target.account.username}</a>`);
  });
});
