// Familiar followers (Mastodon's FamiliarFollowersPresenter): for each account asked
// about, the accounts the viewer follows that follow it. Unknown, malformed and not yet
// visible ids are left out of the answer, as Mastodon's Account lookup leaves them out.
// Each target is answered from the smaller side of the question: its own followers (one
// Query) when it has fewer than the viewer follows, otherwise the edges from the
// viewer's follows to it (a batch read of exact keys).
import { visibleAccountsByIds } from '../policy/accounts';
import type { Account } from '../db/accounts';
import { followedIdsOf, followerIdsOf, followersAmong } from '../db/familiar_followers';
import { isId } from '../ids';
import { RELATIONSHIPS_LIMIT } from './relationships';

/** At most this many ids are answered per request, as for relationships; further ids are ignored. */
export const FAMILIAR_FOLLOWERS_LIMIT = RELATIONSHIPS_LIMIT;

export type FamiliarFollowers = { id: string; accounts: Account[] };

export async function familiarFollowersOf(viewer: Account, ids: string[]): Promise<FamiliarFollowers[]> {
  const wanted = [...new Set(ids.filter(isId).map((id) => BigInt(id).toString()))].slice(0, FAMILIAR_FOLLOWERS_LIMIT);
  if (wanted.length === 0) return [];
  const [targets, followed] = await Promise.all([visibleAccountsByIds(wanted), followedIdsOf(viewer.id)]);
  const followedSet = new Set(followed);

  const familiar = new Map<string, string[]>();
  const viaFollowers = targets.filter((t) => t.followersCount <= followed.length && t.followersCount > 0);
  const viaEdges = targets.filter((t) => t.followersCount > followed.length && followed.length > 0);
  await Promise.all([
    ...viaFollowers.map(async (t) => familiar.set(t.id, (await followerIdsOf(t.id)).filter((id) => followedSet.has(id)))),
    (async () => {
      if (viaEdges.length === 0) return;
      const edges = await followersAmong(followed, viaEdges.map((t) => t.id));
      for (const t of viaEdges) familiar.set(t.id, followed.filter((id) => edges.get(t.id)?.has(id)));
    })(),
  ]);

  const accounts = new Map((await visibleAccountsByIds([...new Set([...familiar.values()].flat())])).map((a) => [a.id, a]));
  return targets.map((t) => ({ id: t.id, accounts: (familiar.get(t.id) ?? []).flatMap((id) => accounts.get(id) ?? []) }));
}
