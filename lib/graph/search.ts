// GET /api/v1/accounts/search, locally: a prefix match on usernames (the username
// index, lib/db/usernames.ts), exact match first. Display names are not indexed,
// and remote accounts are never resolved (`resolve` is accepted and ignored).
//
// Blocks, as Mastodon's AccountSearchService: the exact match (the account whose
// username is the query) is found whatever blocks or mutes lie between the two,
// since clients resolve a name through search before acting on it (toot's
// `unblock NAME`, `unmute NAME`); Mastodon looks it up with no block check, and a
// blocked account's profile stays reachable by id and by lookup anyway. The other,
// partial matches leave out accounts blocked either way, as Mastodon's search index
// query does; mutes do not hide them.
import { isSuspended } from '../policy/sanctions';
import { isVisible } from '../policy/accounts';
import { USERNAME_MAX } from '../text/limits';
import { accountsByIds, type Account } from '../db/accounts';
import { followEdges } from '../db/follows';
import { usernamesByPrefix } from '../db/usernames';
import type { Item } from '../db/table';
import { config } from '../config';
import { hiddenFor, hidesAccount } from '../policy';

/** How many index Queries one search may make while filling a page. */
const MAX_CALLS = 5;

const isLocalDomain = (domain: string): boolean => {
  const d = domain.toLowerCase();
  return d === config.domain.toLowerCase() || d === config.domain.split(':')[0]?.toLowerCase();
};

/** The username prefix a query asks for: `user`, `@user`, `user@our.domain`; undefined when it cannot match locally. */
export function usernamePrefix(q: string): string | undefined {
  const parts = q.trim().replace(/^@/, '').split('@');
  const [name, domain] = parts;
  if (!name || parts.length > 2 || name.length > USERNAME_MAX || !/^[a-z0-9_.-]+$/i.test(name)) return undefined;
  if (domain !== undefined && domain !== '' && !isLocalDomain(domain)) return undefined;
  return name.toLowerCase();
}

export type SearchInput = { q: string; limit: number; offset: number; following: boolean };

export async function searchAccounts(viewer: Account, input: SearchInput): Promise<Account[]> {
  const prefix = usernamePrefix(input.q);
  if (prefix === undefined || input.limit < 1) return [];
  const wanted = input.offset + input.limit;
  const hiddenSets = await hiddenFor(viewer.id);
  const hidden = (a: Account) => hidesAccount(hiddenSets, a);
  const isExact = (a: Account) => a.domain === null && a.username.toLowerCase() === prefix;
  const found: Account[] = [];
  let start: Item | undefined;
  let calls = 0;
  do {
    const page = await usernamesByPrefix(prefix, Math.max(wanted, 20), start);
    calls++;
    start = page.lastKey;
    const accounts = await accountsByIds(page.items.map((e) => e.accountId));
    let matches = page.items.flatMap((e) => {
      const account = accounts.get(e.accountId);
      // A suspended account is found only by its exact name (its entity then says so), as Mastodon's searchable scope.
      return account && isVisible(account) && (isExact(account) || (!hidden(account) && !isSuspended(account))) ? [account] : [];
    });
    if (input.following) {
      const edges = await followEdges(viewer.id, matches.map((a) => a.id));
      matches = matches.filter((a) => edges.has(a.id));
    }
    found.push(...matches);
  } while (start && found.length < wanted && calls < MAX_CALLS);
  // The exact username first, then alphabetical (the index order).
  const exact = found.filter(isExact);
  const rest = found.filter((a) => !isExact(a));
  return [...exact, ...rest].slice(input.offset, wanted);
}
