// Account search of GET /api/v2/search: username prefix (lib/graph/search.ts,
// exact username first) then display-name prefix (every word of the query must
// start a word of the display name), through the display-name word index
// written when a profile's display name changes (lib/accounts/profile.ts).
import { isSuspended } from '../policy/sanctions';
import { isVisible } from '../policy/accounts';
import { accountsByIds, type Account } from '../db/accounts';
import { followEdges } from '../db/follows';
import { accountIdsByDisplayNamePrefix, reindexDisplayName, searchWords } from '../db/search';
import type { Item } from '../db/table';
import { hiddenFor, hidesAccount } from '../policy';
import { searchAccounts as searchUsernames } from '../graph/search';
import { log } from '../log';

const MAX_CALLS = 5;
const MAX_QUERY_WORDS = 8;

async function byDisplayName(viewer: Account, q: string, following: boolean, wanted: number): Promise<Account[]> {
  const words = searchWords(q.replace(/^@/, '')).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return [];
  const hidden = await hiddenFor(viewer.id);
  const driver = [...words].sort((a, b) => b.length - a.length)[0]!;
  const found = new Map<string, Account>();
  let start: Item | undefined;
  let calls = 0;
  do {
    const page = await accountIdsByDisplayNamePrefix(driver, Math.max(wanted * 2, 20), start);
    calls++;
    start = page.lastKey;
    const accounts = await accountsByIds(page.ids);
    let matches = page.ids.flatMap((id) => {
      const a = accounts.get(id);
      if (!a || !isVisible(a) || isSuspended(a) || hidesAccount(hidden, a) || found.has(a.id)) return [];
      const nameWords = searchWords(a.displayName);
      return words.every((w) => nameWords.some((n) => n.startsWith(w))) ? [a] : [];
    });
    if (following && matches.length > 0) {
      const edges = await followEdges(viewer.id, matches.map((a) => a.id));
      matches = matches.filter((a) => edges.has(a.id));
    }
    for (const a of matches) found.set(a.id, a);
  } while (start && found.size < wanted && calls < MAX_CALLS);
  return [...found.values()];
}

export async function searchAccounts(viewer: Account, input: { q: string; limit: number; offset: number; following: boolean }): Promise<Account[]> {
  if (input.limit < 1) return [];
  const wanted = input.offset + input.limit;
  const [byUsername, byName] = await Promise.all([
    searchUsernames(viewer, { ...input, offset: 0, limit: wanted }),
    byDisplayName(viewer, input.q, input.following, wanted),
  ]);
  const merged = new Map<string, Account>();
  for (const a of [...byUsername, ...byName]) if (!merged.has(a.id)) merged.set(a.id, a);
  return [...merged.values()].slice(input.offset, wanted);
}

/** After a display-name change; the profile stands even if indexing fails (the account is then found by username only). */
export async function indexDisplayName(accountId: string, before: string, after: string): Promise<void> {
  try {
    await reindexDisplayName(accountId, before, after);
  } catch (err) {
    log.error('display-name indexing failed', { accountId, err });
  }
}
