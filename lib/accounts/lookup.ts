// Finding accounts by name the way others see them (which accounts exist for others: lib/policy/accounts.ts).
import { config } from '../config';
import { accountByUsername, type Account } from '../db/accounts';
import { notFound } from '../errors';
import { isVisible } from '../policy/accounts';
import { USERNAME_MAX } from '../text/limits';

const isLocalDomain = (domain: string): boolean => {
  const d = domain.toLowerCase();
  return d === config.domain.toLowerCase() || d === config.domain.split(':')[0]?.toLowerCase();
};

/** `user`, `@user`, `user@our.domain`: the local account, or 404 (remote accounts are not resolved). */
export async function lookupAcct(acct: string | undefined): Promise<Account> {
  const parts = (acct ?? '').trim().replace(/^@/, '').split('@');
  const [username, domain] = parts;
  if (!username || parts.length > 2 || username.length > USERNAME_MAX || !/^[a-z0-9_.-]+$/i.test(username)) throw notFound();
  if (domain !== undefined && !isLocalDomain(domain)) throw notFound();
  const account = await accountByUsername(username);
  if (!account || !isVisible(account)) throw notFound();
  return account;
}
