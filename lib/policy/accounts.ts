// Which accounts exist for others: a local account whose login is pending approval or
// lacks a confirmed e-mail does not exist yet (Mastodon 3.5); remote accounts always do.
import { accountById, accountsByIds, type Account } from '../db/accounts';
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

/** The accounts of these ids that others may see, in the order given, none suspended (lists of accounts leave them out): one batch read. */
export async function visibleAccountsByIds(ids: string[]): Promise<Account[]> {
  const found = await accountsByIds(ids);
  return ids.flatMap((id) => {
    const account = found.get(id);
    return account && isVisible(account) && account.suspendedAt === null ? [account] : [];
  });
}
