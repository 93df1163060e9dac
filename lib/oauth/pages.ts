// The authorize pages: plain HTML forms that work without JavaScript. Every
// value shown comes through `esc`; styles are inline, nothing is loaded from elsewhere.
import escapeHtml from 'escape-html';
import { config } from '../config';
import type { Account } from '../db/accounts';
import { describeScope } from './scopes';

export const esc = (value: string | number | null | undefined) => escapeHtml(String(value ?? ''));

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#191b22;color:#d9e1e8}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#282c37;border-radius:8px}
h1{font-size:1.3rem;margin:0 0 1rem}
p{margin:.5rem 0}
a{color:#8c8dff}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;padding:.6rem;border:1px solid #444b5d;border-radius:4px;background:#131419;color:inherit;font:inherit}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:4px;border:0;cursor:pointer;margin-top:1.2rem}
.primary{background:#6364ff;color:#fff}
.secondary{background:transparent;color:#d9e1e8;border:1px solid #606984}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
.error{background:#5c1f24;border-left:4px solid #df405a;padding:.6rem .8rem;border-radius:4px}
.notice{background:#2f3b5c;border-left:4px solid #8c8dff;padding:.6rem .8rem;border-radius:4px}
ul{padding-left:1.2rem}
.scope{font-family:ui-monospace,monospace;font-size:.85em;color:#9baec8}
#code{display:block;padding:.8rem;margin:1rem 0;background:#131419;border-radius:4px;font:1.05rem ui-monospace,monospace;word-break:break-all;user-select:all}
.muted{color:#9baec8;font-size:.9rem}
`;

/** The text of a page's one <style> element: the shared rules and a page family's own (the /admin pages hash it for their CSP). */
export const styleText = (extra = '') => `${STYLE}${extra}`;

/** A whole page; `wide` widens the column (the /admin tables), `style` adds a page family's rules. */
export function page(title: string, body: string, opts: { wide?: boolean; style?: string } = {}): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${esc(title)} - ${esc(config.domain)}</title>
<style>${styleText(opts.style)}</style>
</head>
<body>
<main${opts.wide ? ' class="wide"' : ''}>
${body}
</main>
</body>
</html>
`;
}

const hidden = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`)
    .join('\n');

export type AppView = { name: string; website: string | null };

const appLine = (app: AppView) =>
  app.website
    ? `<strong>${esc(app.name)}</strong> (<a href="${esc(app.website)}" rel="noopener noreferrer nofollow" target="_blank">${esc(app.website)}</a>)`
    : `<strong>${esc(app.name)}</strong>`;

export function loginPage(opts: {
  action: string;
  app: AppView;
  fields: Record<string, string | undefined>;
  csrf: string;
  email?: string;
  error?: string;
  notice?: string;
}): string {
  return page('Log in', `
<h1>Log in to ${esc(config.domain)}</h1>
<p>${appLine(opts.app)} wants to access your account.</p>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" role="alert" id="error">${esc(opts.error)}</p>` : ''}
<form method="post" action="${esc(opts.action)}">
${hidden(opts.fields)}
<input type="hidden" name="csrf_token" value="${esc(opts.csrf)}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" value="${esc(opts.email)}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Log in</button></div>
</form>`);
}

export function approvalPage(opts: {
  action: string;
  switchAccountHref: string;
  app: AppView;
  account: Account;
  scopes: string[];
  fields: Record<string, string | undefined>;
  csrf: string;
  notice?: string;
}): string {
  const items = opts.scopes
    .map((s) => `<li>${esc(describeScope(s))} <span class="scope">${esc(s)}</span></li>`)
    .join('\n');
  return page('Authorization required', `
<h1>Authorization required</h1>
<p>${appLine(opts.app)} would like permission to access your account <strong>@${esc(opts.account.username)}@${esc(config.domain)}</strong>.</p>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
<p>This application will be able to:</p>
<ul id="scopes">
${items}
</ul>
<form method="post" action="${esc(opts.action)}">
${hidden(opts.fields)}
<input type="hidden" name="csrf_token" value="${esc(opts.csrf)}">
<div class="actions">
<button type="submit" name="decision" value="approve" class="primary">Authorize</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<p class="muted">Not you? <a href="${esc(opts.switchAccountHref)}">Log in with another account</a></p>`);
}

export const codePage = (code: string) => page('Authorization code', `
<h1>Authorization code</h1>
<p>Copy this code and paste it into the application:</p>
<code id="code">${esc(code)}</code>`);

export const deniedPage = () => page('Authorization denied', `
<h1>Authorization denied</h1>
<p id="error" data-error="access_denied">You denied the application access to your account. You can close this page.</p>`);

export const errorPage = (error: string, description: string) => page('An error has occurred', `
<h1>An error has occurred</h1>
<p class="error" id="error" data-error="${esc(error)}">${esc(description)}</p>
<p class="muted">Error code: <span class="scope">${esc(error)}</span></p>`);

export const forbiddenPage = () => page('Request refused', `
<h1>Request refused</h1>
<p class="error" id="error" data-error="invalid_authenticity_token">The form has expired or did not come from this site. Go back, reload the page and try again.</p>`);

// ---- the strike (dispute) page: /disputes/strikes/:id (lib/moderation/disputes.ts) ----

export type StrikeView = {
  id: string;
  action: string;
  text: string;
  createdAt: string;
  appeal: { text: string; state: string } | null;
  mayAppeal: boolean;
};

const STRIKE_HEADINGS: Record<string, string> = {
  none: 'You have received a warning',
  disable: 'Your account has been disabled',
  mark_statuses_as_sensitive: 'Your posts have been marked as sensitive',
  delete_statuses: 'Your posts have been removed',
  sensitive: 'Your posts will be marked as sensitive from now on',
  silence: 'Your account has been limited',
  suspend: 'Your account has been suspended',
};

/** The sign-in form of the strike page (the session cookie of the OAuth pages). */
export const strikeLoginPage = (opts: { action: string; csrf: string; email?: string; error?: string }) => page('Log in', `
<h1>Log in to ${esc(config.domain)}</h1>
<p>Log in to see the moderation decision about your account.</p>
${opts.error ? `<p class="error" role="alert" id="error">${esc(opts.error)}</p>` : ''}
<form method="post" action="${esc(opts.action)}">
<input type="hidden" name="csrf_token" value="${esc(opts.csrf)}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" value="${esc(opts.email)}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Log in</button></div>
</form>`);

/** The strike as its account sees it, with the appeal form while it may appeal. */
export const strikePage = (opts: { action: string; csrf: string; strike: StrikeView; error?: string; notice?: string }) => page('Moderation decision', `
<h1>${esc(STRIKE_HEADINGS[opts.strike.action] ?? 'Moderation decision')}</h1>
<p class="muted">${esc(opts.strike.createdAt.slice(0, 10))}</p>
${opts.strike.text ? `<p id="strike-text" style="white-space:pre-wrap">${esc(opts.strike.text)}</p>` : ''}
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" role="alert" id="error">${esc(opts.error)}</p>` : ''}
${opts.strike.appeal
    ? `<p id="appeal-state">Your appeal is ${esc(opts.strike.appeal.state)}.</p><p class="muted">${esc(opts.strike.appeal.text)}</p>`
    : opts.strike.mayAppeal
      ? `<form method="post" action="${esc(opts.action)}">
<input type="hidden" name="csrf_token" value="${esc(opts.csrf)}">
<label for="appeal_text">Appeal this decision</label>
<textarea id="appeal_text" name="appeal[text]" rows="6" maxlength="2000" required style="width:100%;background:#131419;color:inherit;border:1px solid #444b5d;border-radius:4px;padding:.6rem;font:inherit"></textarea>
<div class="actions"><button type="submit" class="primary">Submit appeal</button></div>
</form>`
      : '<p class="muted">This decision can no longer be appealed.</p>'}`);
