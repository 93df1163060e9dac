// GET /auth/confirmation?confirmation_token=... (Mastodon's Devise confirmation link, as an HTML page)
import { z } from 'zod';
import { confirmAccount, confirmationPage } from '../../lib/accounts/confirmation';
import { html, http } from '../../lib/http';

// Any shape is accepted: a malformed token is an invalid link, answered with the page, not JSON.
export const schema = z.object({ confirmation_token: z.unknown().optional() });

export async function run(input: z.infer<typeof schema>) {
  const account = await confirmAccount(input.confirmation_token);
  const page = await confirmationPage(account);
  return html(page.body, page.status);
}

export const handler = http(run, { auth: 'public', schema });
