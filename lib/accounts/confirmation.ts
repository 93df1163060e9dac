// E-mail confirmation: the message with the link, and what visiting the link does.
import { config } from '../config';
import { sha256 } from '../crypto';
import { confirmEmail, type Account } from '../db/accounts';
import { instanceSettings } from '../db/instance';
import type { Mail } from '../mail';
import { escapeHtml } from '../text';

export const confirmationUrl = (token: string): string =>
  `${config.baseUrl}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`;

export function confirmationMail(to: string, username: string, token: string): Mail {
  const url = confirmationUrl(token);
  const subject = `Confirm your e-mail address for ${config.domain}`;
  const text = [
    `Welcome, @${username}!`,
    '',
    `To finish creating your account on ${config.domain}, confirm your e-mail address by opening this link within 24 hours:`,
    '',
    url,
    '',
    'If you did not sign up, ignore this message.',
  ].join('\n');
  const html =
    `<p>Welcome, @${escapeHtml(username)}!</p>` +
    `<p>To finish creating your account on ${escapeHtml(config.domain)}, confirm your e-mail address within 24 hours:</p>` +
    `<p><a href="${escapeHtml(url)}">Confirm my e-mail address</a></p>` +
    `<p>If you did not sign up, ignore this message.</p>`;
  return { to, subject, text, html };
}

/** Confirms the account a link was sent for; undefined for an unknown, used or expired link. */
export async function confirmAccount(token: unknown): Promise<Account | undefined> {
  if (typeof token !== 'string' || token === '' || token.length > 200) return undefined;
  return confirmEmail(sha256(token));
}

/** The confirmation page (HTML); everything interpolated is escaped. */
export async function confirmationPage(account: Account | undefined): Promise<{ status: number; body: string }> {
  const { title } = await instanceSettings();
  const heading = account ? 'Your e-mail address is confirmed' : 'This confirmation link is invalid';
  const message = account
    ? account.approved
      ? `Thank you, @${escapeHtml(account.username)}. You can now sign in from your app.`
      : `Thank you, @${escapeHtml(account.username)}. A moderator still has to approve your account before you can sign in.`
    : 'The link is unknown, was already used, or has expired (links are valid for 24 hours).';
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading)} - ${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#222}h1{font-size:1.4rem}</style>
</head>
<body>
<main>
<h1>${escapeHtml(heading)}</h1>
<p>${message}</p>
<p><small>${escapeHtml(title)} (${escapeHtml(config.domain)})</small></p>
</main>
</body>
</html>
`;
  return { status: account ? 200 : 404, body };
}
