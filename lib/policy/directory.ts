// Who the profile directory shows (Mastodon's Account.discoverable scope and the exclusions of
// Api::V1::DirectoriesController): accounts that opted in, that exist for others (a local login
// approved and confirmed), not disabled, not silenced or suspended, nor on a server the operator silenced or suspended (Account.discoverable's without_silenced, searchable's without_suspended); and
// to a signed-in viewer, none it blocks, is blocked by, mutes, or whose domain it blocks.
import type { Account } from '../db/accounts';
import { isVisible } from './accounts';
import { hidesAccount, type Hidden } from './hidden';
import { isLimited } from './sanctions';

/** May the account be listed in the directory at all (whoever asks)? */
export const listedInDirectory = async (account: Account): Promise<boolean> =>
  account.discoverable && isVisible(account) && !account.disabled && !(await isLimited(account));

/** Does the viewer's block, mute and domain-block state keep the account out of its directory? */
export const directoryHides = (hidden: Hidden, account: Pick<Account, 'id' | 'domain'>): boolean =>
  hidesAccount(hidden, account) || hidden.muted.has(account.id);
