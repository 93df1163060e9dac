// The profile directory (GET /api/v1/directory): discoverable accounts, most recently active or
// newest first, this server's alone (`local`) or with the remote accounts we know, paged by
// offset as Mastodon pages it. The index is lib/db/directory.ts; who shows is lib/policy/directory.ts.
import { accountsByIds, type Account } from '../db/accounts';
import { directoryEntries, removeDirectoryEntries, type DirectoryOrder } from '../db/directory';
import type { Key } from '../db/keys';
import { directoryHides, listedInDirectory } from '../policy/directory';
import { hiddenFor } from '../policy/hidden';

export type DirectoryQuery = { offset: number; limit: number; order: DirectoryOrder; local: boolean };

/**
 * One page of the directory for `viewer` (undefined: signed out). Positions count the index's entries,
 * so a page may show fewer accounts than `limit` when some are hidden from this viewer; the next
 * offset is still `offset + limit`. Entries whose account is gone or no longer discoverable are removed.
 */
export async function directoryPage(viewer: Account | undefined, q: DirectoryQuery): Promise<Account[]> {
  const { entries, strays } = await directoryEntries(q.order, q.local ? ['local'] : ['local', 'remote'], q.offset + q.limit);
  const page = entries.slice(q.offset);
  const [accounts, hidden] = await Promise.all([accountsByIds(page.map((e) => e.accountId)), hiddenFor(viewer?.id)]);
  const stale: Key[] = [...strays];
  const shown: Account[] = [];
  for (const entry of page) {
    const account = accounts.get(entry.accountId);
    if (!account || !account.discoverable) stale.push(entry.key);
    else if ((await listedInDirectory(account)) && !directoryHides(hidden, account)) shown.push(account);
  }
  await removeDirectoryEntries(stale);
  return shown;
}
