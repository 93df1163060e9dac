// Which accounts exist for others: a local account whose login is pending approval or
// lacks a confirmed e-mail does not exist yet (Mastodon 3.5); remote accounts always do.
import { accountById, type Account } from '../db/accounts';
import { notFound } from '../errors';
import { isId } from '../ids';

export const isVisible = (account: Account): boolean =>
  account.domain !== null || (account.approved && account.confirmedAt !== null);

/** The account others may see by this id, or 404. */
export async function visibleAccountById(id: string): Promise<Account> {
  if (!isId(id)) throw notFound();
  const account = await accountById(id);
  if (!account || !isVisible(account)) throw notFound();
  return account;
}
