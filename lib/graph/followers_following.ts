// Followers and following of an account: one Query of edges plus one batch read
// of the accounts. Pages are ordered by the other account's id (the edge's sort
// key), newest account first, and the Link header carries those ids.
import type { Account } from '../db/accounts';
import { followersPage, followingPage, type Follow } from '../db/follows';
import type { Page } from '../paging';
import { visibleAccountsByIds } from '../policy/accounts';
import { goneFor } from '../policy/sanctions';

export type AccountPage = { accounts: Account[]; newest?: string; oldest?: string };

async function pageOf(edges: Follow[], other: (f: Follow) => string): Promise<AccountPage> {
  const ids = edges.map(other);
  return {
    accounts: await visibleAccountsByIds(ids),
    newest: ids[0],
    oldest: ids[ids.length - 1],
  };
}

type Owner = Pick<Account, 'id' | 'suspendedAt' | 'hideCollections'>;

/**
 * Mastodon's hide_results?: a suspended account's lists, and those of an account that hides its network
 * (`hide_collections`), are empty to all but itself.
 */
const hiddenFrom = (account: Owner, viewerId: string | undefined) => goneFor(account, viewerId) || (account.hideCollections === true && viewerId !== account.id);

export const followersOf = async (account: Owner, viewerId: string | undefined, page: Page): Promise<AccountPage> =>
  hiddenFrom(account, viewerId) ? { accounts: [] } : pageOf(await followersPage(account.id, page), (f) => f.followerId);

export const followingOf = async (account: Owner, viewerId: string | undefined, page: Page): Promise<AccountPage> =>
  hiddenFrom(account, viewerId) ? { accounts: [] } : pageOf(await followingPage(account.id, page), (f) => f.followedId);
