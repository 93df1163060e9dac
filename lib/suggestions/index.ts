// Follow suggestions (GET /api/v1/suggestions), from the user's own recent
// positive interactions, as Mastodon's PotentialFriendshipTracker: the authors
// of the statuses they favourited (weight 10 in Mastodon; here 1 each), reblogged
// and replied to, ranked by how often, among the user's latest
// INTERACTIONS_READ favourites and INTERACTIONS_READ own statuses (two Queries
// and two batch reads: no scan). Excluded: the user, accounts they follow,
// accounts they dismissed, and accounts hidden by blocks and mutes.
// Not done: the "most-followed local accounts" fallback (it needs a
// followers-count index the table does not have yet).
import { visibleAccountById } from '../policy/accounts';
import { accountsByIds, type Account } from '../db/accounts';
import { accountStatusesPage } from '../db/account_statuses';
import { followEdges } from '../db/follows';
import { accountFavouritesPage } from '../db/interactions';
import { statusesByIds } from '../db/statuses';
import { dismissedAmong, putDismissedSuggestion } from '../db/suggestions';
import { hiddenFor, hidesAuthor } from '../policy';

export const INTERACTIONS_READ = 80;

async function interactedAuthors(user: Account): Promise<Map<string, number>> {
  const [favourites, own] = await Promise.all([
    accountFavouritesPage(user.id, { limit: INTERACTIONS_READ }),
    accountStatusesPage(user.id, { limit: INTERACTIONS_READ }, {}),
  ]);
  const counts = new Map<string, number>();
  const bump = (id: string | null | undefined) => {
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  };
  const reblogged = own.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : []));
  const statuses = await statusesByIds([...favourites.map((f) => f.statusId), ...reblogged]);
  for (const f of favourites) bump(statuses.get(f.statusId)?.accountId);
  for (const id of reblogged) bump(statuses.get(id)?.accountId);
  for (const s of own) if (!s.reblogOfId) bump(s.inReplyToAccountId);
  return counts;
}

export async function suggestionsFor(user: Account, limit: number): Promise<Account[]> {
  const counts = await interactedAuthors(user);
  counts.delete(user.id);
  const candidates = [...counts.keys()];
  if (candidates.length === 0) return [];
  const [following, dismissedIds, hidden, byId] = await Promise.all([
    followEdges(user.id, candidates),
    dismissedAmong(user.id, candidates),
    hiddenFor(user.id),
    accountsByIds(candidates),
  ]);
  return candidates
    .filter((id) => !following.has(id) && !dismissedIds.has(id) && !hidesAuthor(hidden, id))
    .sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || b.localeCompare(a))
    .flatMap((id) => {
      const account = byId.get(id);
      return account ? [account] : [];
    })
    .slice(0, limit);
}

/** Dismisses an account for good; an unknown one is 404 and stores nothing. */
export async function dismissSuggestion(user: Account, accountId: string): Promise<void> {
  const target = await visibleAccountById(accountId);
  await putDismissedSuggestion(user.id, target.id);
}
