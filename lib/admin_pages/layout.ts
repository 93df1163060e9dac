// The frame of every moderation page: the OAuth pages' HTML (lib/oauth/pages.ts) widened for tables, the
// navigation of what the signed-in role may open, and the headers. No page runs script: the Content-Security-
// Policy allows none, and only the one <style> element whose hash it names; forms post to this site alone.
import { createHash } from 'node:crypto';
import { config } from '../config';
import type { Account } from '../db/accounts';
import { html, redirect, type Reply } from '../http/reply';
import { esc, page, styleText } from '../oauth/pages';
import { basePath } from '../oauth/session';
import { can, roleOf, type Permission } from '../policy/roles';

export { esc };

const ADMIN_STYLE = `
main.wide{max-width:72rem}
nav{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;margin:0 0 1.5rem;padding-bottom:.75rem;border-bottom:1px solid #444b5d}
nav form{margin:0 0 0 auto}
nav button{margin:0;padding:.3rem .8rem}
table{width:100%;border-collapse:collapse;margin:1rem 0}
th,td{text-align:left;vertical-align:top;padding:.45rem .5rem;border-bottom:1px solid #393f4f}
th{color:#9baec8;font-weight:600;font-size:.9rem}
.comment{white-space:pre-wrap;word-break:break-word}
.status{background:#1f232b;border-radius:6px;padding:.75rem 1rem;margin:.75rem 0}
.status .content{word-break:break-word}
.status .content p{margin:.25rem 0}
.badge{display:inline-block;padding:0 .45rem;border-radius:4px;background:#393f4f;font-size:.85rem;margin-right:.25rem}
.badge.bad{background:#5c1f24}
.inline{display:inline}
.inline button{margin:.2rem .3rem .2rem 0;padding:.35rem .8rem}
textarea,input[type=text],input[type=search],select{width:100%;padding:.5rem;border:1px solid #444b5d;border-radius:4px;background:#131419;color:inherit;font:inherit}
.danger{background:#df405a;color:#fff}
.pager{margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}
dt{color:#9baec8}
dd{margin:0}
`;

const STYLE_HASH = createHash('sha256').update(styleText(ADMIN_STYLE)).digest('base64');

/** No script at all, this page's one style element, images only as data: (the favicon), forms to this site. */
export const CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

const HEADERS = { 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate' };

/** The path of an /admin page under BASE_URL. */
export const adminPath = (path = '') => `${basePath()}/admin${path}`;

const NAV: { path: string; label: string; permission: Permission }[] = [
  { path: '/reports', label: 'Reports', permission: 'manage_reports' },
  { path: '/accounts', label: 'Accounts', permission: 'manage_users' },
  { path: '/pending_accounts', label: 'Pending sign-ups', permission: 'manage_users' },
  { path: '/disputes/appeals', label: 'Appeals', permission: 'manage_appeals' },
  { path: '/domain_blocks', label: 'Domain blocks', permission: 'manage_federation' },
  { path: '/domain_allows', label: 'Domain allows', permission: 'manage_federation' },
  { path: '/email_domain_blocks', label: 'E-mail domain blocks', permission: 'manage_blocks' },
  { path: '/canonical_email_blocks', label: 'E-mail address blocks', permission: 'manage_blocks' },
  { path: '/ip_blocks', label: 'IP rules', permission: 'manage_blocks' },
  { path: '/trends/tags', label: 'Trends', permission: 'manage_taxonomies' },
  { path: '/warning_presets', label: 'Warning presets', permission: 'manage_settings' },
  { path: '/action_logs', label: 'Audit log', permission: 'view_audit_log' },
];

/** The first page of the navigation the account's role may open, if any. */
export const firstPageFor = (account: Account): string | undefined => NAV.find((item) => can(account, item.permission))?.path;

/** A hidden CSRF field: the session's token, checked on every POST. */
export const csrfField = (csrf: string) => `<input type="hidden" name="csrf_token" value="${esc(csrf)}">`;

export type Viewer = { account: Account; csrf: string };

function navigation(viewer: Viewer): string {
  const links = NAV.filter((item) => can(viewer.account, item.permission))
    .map((item) => `<a href="${esc(adminPath(item.path))}">${esc(item.label)}</a>`)
    .join('\n');
  return `<nav>
${links}
<span class="muted">@${esc(viewer.account.username)} (${esc(roleOf(viewer.account).name || 'no role')})</span>
<form method="post" action="${esc(adminPath('/sign_out'))}">${csrfField(viewer.csrf)}<button type="submit" class="secondary">Sign out</button></form>
</nav>`;
}

/** A moderation page for a signed-in viewer. */
export function adminPage(viewer: Viewer | undefined, title: string, body: string, status = 200, cookies: string[] = []): Reply {
  const nav = viewer ? navigation(viewer) : '';
  return html(page(`${title} (${config.domain} moderation)`, `${nav}\n<h1>${esc(title)}</h1>\n${body}`, { wide: true, style: ADMIN_STYLE }), status, HEADERS, cookies);
}

/** A short page that says why a request was refused or failed, with the way back. */
export const messagePage = (viewer: Viewer | undefined, status: number, title: string, text: string, back?: string): Reply =>
  adminPage(viewer, title, `<p class="error" role="alert" id="error">${esc(text)}</p>${back ? `\n<p><a href="${esc(back)}">Back</a></p>` : ''}`, status);

/** After a form: back to a page (303, so the browser GETs it), with one of that page's notices. */
export const seeOther = (path: string, notice?: string): Reply =>
  redirect(notice ? `${path}${path.includes('?') ? '&' : '?'}notice=${encodeURIComponent(notice)}` : path, [], 303);

/** A notice a page shows after a form, chosen from its own fixed texts by the `notice` parameter. */
export const noticeOf = (texts: Record<string, string>, input: Record<string, unknown>): string => {
  const key = typeof input.notice === 'string' ? input.notice : '';
  const text = Object.hasOwn(texts, key) ? texts[key] : undefined;
  return text ? `<p class="notice" role="status" id="notice">${esc(text)}</p>` : '';
};

/** A time as a person reads it (UTC, to the minute). */
export const when = (iso: string | null | undefined) => (iso ? esc(iso.slice(0, 16).replace('T', ' ')) : '');
