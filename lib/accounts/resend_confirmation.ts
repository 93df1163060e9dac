// Resending the confirmation e-mail (Mastodon's Api::V1::Emails::ConfirmationsController): a user who signed
// up through an app and has not confirmed yet asks that app for the mail again, maybe to a corrected address.
// Only the app it signed up with may (another app's token, or an account made by the operator, gets 403), and
// only while the address awaits confirmation (403 once confirmed). Each resend makes a new 24-hour link; the
// mail goes through the mail queue as at registration.
import { sha256 } from '../crypto';
import { changeUnconfirmedEmail, putConfirmation, type Account, type Confirmation } from '../db/accounts';
import { expiresIn, nowIso } from '../db/table';
import type { Token } from '../db/tokens';
import { forbidden } from '../errors';
import { secretToken } from '../ids';
import { enqueue } from '../queue';
import { confirmationMail } from './confirmation';
import { CONFIRMATION_TTL_SECONDS, EMAIL_MAX, isEmail, normalizeEmail } from './register';
import { describe, Violations } from './violations';

const NOT_THE_SIGN_UP_APP = 'This method is only available to the application the user originally signed-up with';
const ALREADY_CONFIRMED = 'This method is only available while the e-mail is awaiting confirmation';

const emailViolation = (code: 'ERR_INVALID' | 'ERR_TOO_LONG' | 'ERR_TAKEN', message: string) =>
  new Violations().add('email', 'E-mail address', code, message).error();

/** The new address, checked as at registration; undefined when none was given or it is the current one. */
function changedEmail(account: Account, given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  const email = normalizeEmail(given);
  if (email.length > EMAIL_MAX) throw emailViolation('ERR_TOO_LONG', describe.tooLong(EMAIL_MAX));
  if (!isEmail(email)) throw emailViolation('ERR_INVALID', describe.invalid);
  return email === account.email ? undefined : email;
}

/** Sends `account` a new confirmation link, first moving it to `email` when one is given. */
export async function resendConfirmation(account: Account, token: Pick<Token, 'clientId'>, email?: string): Promise<void> {
  if (account.createdByClientId === null || account.createdByClientId !== token.clientId) throw forbidden(NOT_THE_SIGN_UP_APP);
  if (account.confirmedAt !== null) throw forbidden(ALREADY_CONFIRMED);
  const newEmail = changedEmail(account, email);
  const raw = secretToken();
  const link: Confirmation = {
    tokenHash: sha256(raw),
    accountId: account.id,
    email: newEmail ?? account.email ?? '',
    createdAt: nowIso(),
    expiresAt: expiresIn(CONFIRMATION_TTL_SECONDS),
  };
  if (newEmail) {
    const changed = await changeUnconfirmedEmail(account, newEmail, link);
    if ('failed' in changed) {
      if (changed.failed === 'email-taken') throw emailViolation('ERR_TAKEN', describe.taken);
      // Confirmed (or moved to another address) by a request that raced this one.
      throw forbidden(ALREADY_CONFIRMED);
    }
  } else {
    await putConfirmation(link);
  }
  await enqueue('mail', confirmationMail(link.email, account.username, raw));
}
