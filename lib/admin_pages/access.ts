// Who may open a moderation page: a browser signed in (the session of lib/oauth/session.ts, shared with the
// authorize page) whose account's role holds the page's permission. Not signed in: to the sign-in form, which
// brings the browser back. Signed in without the permission: 403. A form's POST must also carry the session's
// CSRF token.
import { redirect, type Reply } from '../http/reply';
import { currentSession, sessionCsrfValid, type SignedIn } from '../oauth/session';
import { can, type Permission } from '../policy/roles';
import { adminPath, firstPageFor, messagePage, type Viewer } from './layout';

export type Access = { ok: true; viewer: Viewer; signedIn: SignedIn } | { ok: false; reply: Reply };

/** A path under /admin the sign-in may send the browser back to: a plain path and query of ours, nothing else. */
export const isReturnPath = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 500 && /^\/(?![/\\])[A-Za-z0-9_\-/]*(\?[A-Za-z0-9_\-=&%.]*)?$/.test(value);

const toSignIn = (returnTo: string, status = 302): Reply =>
  redirect(`${adminPath('/sign_in')}?${new URLSearchParams({ return_to: isReturnPath(returnTo) ? returnTo : '/reports' }).toString()}`, [], status);

const refused = (viewer: Viewer) =>
  messagePage(viewer, 403, 'Access denied', 'Your role does not allow you to open this page.');

/** A GET of a page: `returnTo` is the page's path under /admin (with its query), where sign-in brings the browser back. */
export async function pageAccess(cookies: Record<string, string>, permission: Permission, returnTo: string): Promise<Access> {
  const signedIn = await currentSession(cookies);
  if (!signedIn) return { ok: false, reply: toSignIn(returnTo) };
  const viewer = { account: signedIn.account, csrf: signedIn.session.csrf };
  if (!can(signedIn.account, permission)) return { ok: false, reply: refused(viewer) };
  return { ok: true, viewer, signedIn };
}

/** A form's POST: signed in, its CSRF token the session's, and the permission. */
export async function formAccess(cookies: Record<string, string>, input: Record<string, unknown>, permission: Permission, returnTo: string): Promise<Access> {
  const signedIn = await currentSession(cookies);
  if (!signedIn) return { ok: false, reply: toSignIn(returnTo, 303) };
  const viewer = { account: signedIn.account, csrf: signedIn.session.csrf };
  if (!sessionCsrfValid(signedIn.session, input.csrf_token)) {
    return { ok: false, reply: messagePage(viewer, 403, 'Request refused', 'The form has expired or did not come from this site. Go back, reload the page and try again.', adminPath(returnTo)) };
  }
  if (!can(signedIn.account, permission)) return { ok: false, reply: refused(viewer) };
  return { ok: true, viewer, signedIn };
}

type PageInput = Record<string, unknown>;
type PageCtx = { cookies: Record<string, string>; query: Record<string, unknown> };
type Render = (viewer: Viewer, input: PageInput) => Promise<Reply>;

/** A page's path under /admin with its query, where the sign-in brings the browser back. */
const withQuery = (path: string, query: Record<string, unknown>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
};

/** The `run` of a page's GET handler: access for `permission`, then `render`. `pathOf` names the page under /admin. */
export const pageRun = (permission: Permission, pathOf: (input: PageInput) => string, render: Render) =>
  async (input: PageInput, ctx: PageCtx): Promise<Reply> => {
    const access = await pageAccess(ctx.cookies, permission, withQuery(pathOf(input), ctx.query));
    return access.ok ? render(access.viewer, input) : access.reply;
  };

/** The `run` of a page's POST handler: access for `permission` with the form's CSRF token, then `submit`. */
export const formRun = (permission: Permission, pathOf: (input: PageInput) => string, submit: Render) =>
  async (input: PageInput, ctx: PageCtx): Promise<Reply> => {
    const access = await formAccess(ctx.cookies, input, permission, pathOf(input));
    return access.ok ? submit(access.viewer, input) : access.reply;
  };

/** The page of an id from the path (`/reports/123`), or the list when the id is no id. */
export const idPath = (base: string) => (input: PageInput) => (typeof input.id === 'string' && /^\d{1,20}$/.test(input.id) ? `${base}/${input.id}` : base);

/** GET /admin: the first page the signed-in role may open (the report queue for a moderator), or the sign-in form. */
export async function adminHome(cookies: Record<string, string>): Promise<Reply> {
  const signedIn = await currentSession(cookies);
  if (!signedIn) return toSignIn('/reports');
  const first = firstPageFor(signedIn.account);
  return first ? redirect(adminPath(first)) : refused({ account: signedIn.account, csrf: signedIn.session.csrf });
}
