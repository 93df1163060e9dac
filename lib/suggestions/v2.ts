// Follow suggestions with their reasons (GET /api/v2/suggestions, Mastodon 4.3's
// AccountSuggestions), what Elk's "For you" tab lists. Two sources, each a bounded read:
// - friends_of_friends: the accounts followed by a sample of FRIENDS_SAMPLE of the
//   accounts the user follows (one Query each, FRIENDS_FOLLOWING_READ edges), ranked
//   by how many of them follow it (Mastodon's FriendsOfFriendsSource counts them all);
// - most_followed: the local authors of the latest RECENT_POSTS_READ public statuses,
//   ranked by followers (Mastodon's GlobalSource ranks active local accounts by their
//   followers from a materialized view this table does not have).
// As Mastodon's base scope: only discoverable accounts the user may see, not the user,
// not followed, not dismissed (DELETE /api/v1/suggestions/:id), not blocked either way,
// muted or on a blocked domain. Mastodon shuffles the list; here it is ranked, friends
// of friends first, so that the order is stable from one request to the next.
// The v1 list (./index.ts, past interactions) is unchanged.
import { isSilenced, isSuspended } from '../policy/sanctions';
import { isVisible } from '../policy/accounts';
import { hiddenFor, hidesAccount, hidesAuthor } from '../policy/hidden';
import { accountsByIds, type Account } from '../db/accounts';
import { followedIdsOf } from '../db/familiar_followers';
import { followingPage } from '../db/follows';
import { dismissedAmong } from '../db/suggestions';
import { publicTimelineEntries } from '../db/timelines';

export const FRIENDS_SAMPLE = 5;
export const FRIENDS_FOLLOWING_READ = 80;
export const RECENT_POSTS_READ = 200;
/** Candidates whose accounts are read: one BatchGet (100 keys) of accounts and one of dismissals. */
export const CANDIDATES_READ = 100;

export type SuggestionSource = 'friends_of_friends' | 'most_followed';
export type Suggestion = { account: Account; sources: SuggestionSource[] };

/** Mastodon 4.3's `source` (deprecated) for the first of `sources`. */
export const legacySource = (source: SuggestionSource): string => (source === 'friends_of_friends' ? 'past_interactions' : 'global');

/** How many of the sampled friends follow each account. */
async function friendsOfFriends(followed: string[]): Promise<Map<string, number>> {
  // The most recently created of the followed accounts: a stable sample, without reading when each follow was made.
  const friends = followed.slice(-FRIENDS_SAMPLE);
  const pages = await Promise.all(friends.map((id) => followingPage(id, { limit: FRIENDS_FOLLOWING_READ })));
  const counts = new Map<string, number>();
  for (const edge of pages.flat()) counts.set(edge.followedId, (counts.get(edge.followedId) ?? 0) + 1);
  return counts;
}

/** The local authors of the latest public statuses. */
async function recentLocalAuthors(): Promise<Set<string>> {
  const entries = await publicTimelineEntries('local', {}).next(RECENT_POSTS_READ);
  return new Set(entries.map((e) => e.accountId));
}

export async function suggestionsWithSources(user: Account, limit: number): Promise<Suggestion[]> {
  const [followed, active, hidden] = await Promise.all([followedIdsOf(user.id), recentLocalAuthors(), hiddenFor(user.id)]);
  const fof = followed.length > 0 ? await friendsOfFriends(followed) : new Map<string, number>();

  const followedSet = new Set(followed);
  const open = (id: string) => id !== user.id && !followedSet.has(id) && !hidesAuthor(hidden, id);
  const candidates = [...new Set([...[...fof.keys()].sort((a, b) => fof.get(b)! - fof.get(a)!), ...active])]
    .filter(open)
    .slice(0, CANDIDATES_READ);
  if (candidates.length === 0) return [];
  const read = new Set(candidates);
  const [accounts, dismissed] = await Promise.all([accountsByIds(candidates), dismissedAmong(user.id, candidates)]);

  const suggestible = (id: string): Account[] => {
    const account = accounts.get(id);
    // Mastodon suggests neither suspended nor silenced accounts.
    return account && isVisible(account) && account.discoverable && !isSuspended(account) && !isSilenced(account) && !dismissed.has(id) && !hidesAccount(hidden, account) ? [account] : [];
  };
  const byFollowers = (a: Account, b: Account) => b.followersCount - a.followersCount || b.id.localeCompare(a.id);
  const fromFriends = [...fof.keys()]
    .filter((id) => read.has(id))
    .flatMap(suggestible)
    .sort((a, b) => fof.get(b.id)! - fof.get(a.id)! || byFollowers(a, b));
  const fromActive = [...active].filter((id) => read.has(id)).flatMap(suggestible).sort(byFollowers);

  const out = new Map<string, Suggestion>();
  for (const account of fromFriends) out.set(account.id, { account, sources: ['friends_of_friends'] });
  for (const account of fromActive) {
    const known = out.get(account.id);
    if (known) known.sources.push('most_followed');
    else out.set(account.id, { account, sources: ['most_followed'] });
  }
  return [...out.values()].slice(0, limit);
}
