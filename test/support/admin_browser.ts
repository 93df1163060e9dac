// A browser for the moderation pages under /admin: a cookie jar, requests to the page handlers as a browser sends
// them (forms as application/x-www-form-urlencoded), and the sign-in through the form.
import { handler as signIn } from '../../functions/admin_pages/sign_in';
import { handler as signInSubmit } from '../../functions/admin_pages/sign_in_submit';
import { setRole } from '../../lib/db/accounts';
import { aUser, type UserFixture } from './factories';
import { call, type Answer } from './http';

export type Handler = Parameters<typeof call>[0];

const unescape = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The first value of a hidden field of the page. */
export const field = (html: string, name: string): string | undefined => {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return m ? unescape(m[1]!) : undefined;
};

/** The session's CSRF token, as the page's forms carry it. */
export const csrfOf = (page: Answer) => field(page.text, 'csrf_token') ?? '';

export class AdminBrowser {
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
    return this.post(signInSubmit, '/admin/sign_in', {
      csrf_token: field(form.text, 'csrf_token') ?? '',
      return_to: field(form.text, 'return_to') ?? '',
      email: user.account.email ?? '',
      password,
    });
  }
}

/** A signed-in browser of a new user with the given role ('1' Moderator, '2' Admin, null none); `scopes` for its API token. */
export async function signedInAs(roleId: string | null, scopes?: string[]): Promise<{ browser: AdminBrowser; user: UserFixture }> {
  const user = await aUser(scopes ? { scopes } : {});
  if (roleId) user.account = (await setRole(user.account.id, roleId, false))!;
  const browser = new AdminBrowser();
  const res = await browser.signIn(user);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return { browser, user };
}
