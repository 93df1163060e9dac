// Followers and following of an account: one Query of edges plus one batch read
// of the accounts. Pages are ordered by the other account's id (the edge's sort
// key), newest account first, and the Link header carries those ids.
import { isVisible } from '../policy/accounts';
import { accountsByIds, type Account } from '../db/accounts';
import { followersPage, followingPage, type Follow } from '../db/follows';
import type { Page } from '../paging';

export type AccountPage = { accounts: Account[]; newest?: string; oldest?: string };

async function pageOf(edges: Follow[], other: (f: Follow) => string): Promise<AccountPage> {
  const ids = edges.map(other);
  const found = await accountsByIds(ids);
  return {
    accounts: ids.flatMap((id) => {
      const account = found.get(id);
      return account && isVisible(account) ? [account] : [];
    }),
    newest: ids[0],
    oldest: ids[ids.length - 1],
  };
}

export const followersOf = async (accountId: string, page: Page) => pageOf(await followersPage(accountId, page), (f) => f.followerId);

export const followingOf = async (accountId: string, page: Page) => pageOf(await followingPage(accountId, page), (f) => f.followedId);
