// Finding accounts the way others see them: a local account whose login is
// pending approval or lacks a confirmed e-mail does not exist yet (Mastodon 3.5).
import { config } from '../config';
import { accountById, accountByUsername, type Account } from '../db/accounts';
import { notFound } from '../errors';
import { isId } from '../ids';
import { USERNAME_MAX } from './register';

export const isVisible = (account: Account): boolean =>
  account.domain !== null || (account.approved && account.confirmedAt !== null);

export async function visibleAccountById(id: string): Promise<Account> {
  if (!isId(id)) throw notFound();
  const account = await accountById(id);
  if (!account || !isVisible(account)) throw notFound();
  return account;
}

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
