// Resource owner authentication: e-mail and password, as Mastodon's login form
// and its password grant (where `username` carries the e-mail address).
import { sha256 } from '../crypto';
import { accountByEmail, type Account } from '../db/accounts';
import { addressSubject, enforce, exemptFromRateLimits, hit, throttles } from '../http/ratelimit';
import { secretToken } from '../ids';
import { log } from '../log';
import { hashPassword, verifyPassword } from '../password';
import { enqueue } from '../queue';

let dummyHash: Promise<string> | undefined;

/** Unknown addresses still cost one argon2 verification, so timing does not tell which addresses exist. */
const decoyHash = () => (dummyHash ??= hashPassword(secretToken()));

export type LoginResult = { ok: true; account: Account } | { ok: false; reason: 'invalid' | 'disabled' };

/**
 * Checks a login. An unconfirmed or pending account may sign in, as on Mastodon:
 * its tokens then answer the API's 403s. A disabled one may not.
 */
export async function checkLogin(email: string | undefined, password: string | undefined): Promise<LoginResult> {
  const address = (email ?? '').trim();
  const account = address !== '' && address.length <= 320 ? await accountByEmail(address) : undefined;
  const hash = account?.passwordHash ?? (await decoyHash());
  const valid = await verifyPassword(hash, password ?? '');
  if (!account?.passwordHash || !valid || password === undefined || password === '') return { ok: false, reason: 'invalid' };
  if (account.disabled || account.suspendedAt) return { ok: false, reason: 'disabled' };
  return { ok: true, account };
}

/**
 * Counts one sign-in attempt, per address and per e-mail address tried, and
 * throws 429 once either budget is spent. Every attempt counts, right or wrong,
 * as Mastodon counts every POST to its sign-in form: while limited, even the
 * right password is refused, so guessing gains nothing from the last try.
 */
export async function countSignInAttempt(ip: string, email: unknown): Promise<void> {
  if (exemptFromRateLimits(ip)) return;
  const address = typeof email === 'string' ? email.trim().toLowerCase() : '';
  // The e-mail is counted by its hash: a counter names no address, existing or not.
  enforce(
    await Promise.all([
      hit(throttles.signInAddress, addressSubject(ip)),
      address === '' ? undefined : hit(throttles.signInEmail, sha256(address)),
    ]),
  );
}

/** Records the sign-in off the request path; a failure to enqueue must not fail the login. */
export async function recordSignInLater(accountId: string): Promise<void> {
  try {
    await enqueue('signin', { accountId, at: new Date().toISOString() });
  } catch (err) {
    log.warn('sign-in not recorded', { accountId, err });
  }
}
