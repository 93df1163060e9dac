// Finding accounts by name the way others see them (which accounts exist for others: lib/policy/accounts.ts).
import { config } from '../config';
import { accountByUsername, type Account } from '../db/accounts';
import { remoteAccountByAcct } from '../db/remote';
import { notFound } from '../errors';
import { isVisible } from '../policy/accounts';
import { USERNAME_MAX } from '../text/limits';

const isLocalDomain = (domain: string): boolean => {
  const d = domain.toLowerCase();
  return d === config.domain.toLowerCase() || d === config.domain.split(':')[0]?.toLowerCase();
};

const isLocalUsername = (username: string) => username.length <= USERNAME_MAX && /^[a-z0-9_.-]+$/i.test(username);

/**
 * `user`, `@user`, `user@our.domain`: the local account; `user@other.domain`: a remote account
 * already known here (nothing is fetched: search with resolve=true does that); or 404.
 */
export async function lookupAcct(acct: string | undefined): Promise<Account> {
  const parts = (acct ?? '').trim().replace(/^@/, '').split('@');
  const [username, domain] = parts;
  if (!username || parts.length > 2) throw notFound();
  const local = domain === undefined || isLocalDomain(domain);
  let account: Account | undefined;
  if (local) account = isLocalUsername(username) ? await accountByUsername(username) : undefined;
  else account = domain !== '' && username.length <= 255 ? await remoteAccountByAcct(username, domain) : undefined;
  if (!account || !isVisible(account)) throw notFound();
  return account;
}
