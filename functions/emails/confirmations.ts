// POST /api/v1/emails/confirmations (https://docs.joinmastodon.org/methods/emails/#confirmation): resends the
// confirmation e-mail, to a corrected address when `email` is given. Open to a login still awaiting confirmation.
import { z } from 'zod';
import { resendConfirmation } from '../../lib/accounts/resend_confirmation';
import { http, type Ctx } from '../../lib/http';
import type { Throttle } from '../../lib/http/ratelimit';
import { text } from '../../lib/schema';

/** Each request sends a mail: a few per half hour per account is enough to fix a typo, too few to mail-bomb anyone. */
const confirmationMails: Throttle = { name: 'confirmation-mail', limit: 5, periodSeconds: 30 * 60, per: 'account' };

export const schema = z.object({
  // Bounded before the address rules run (lib/accounts/register.ts gives the real limit).
  email: text(10_000).optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await resendConfirmation(ctx.account, ctx.token, input.email);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'], schema, unconfirmed: true, throttles: [confirmationMails] });
