// A new follow merges the followed account's latest statuses into the follower's
// home (Mastodon's MergeWorker), by the same rule the fan-out applies to new
// statuses (lib/policy/delivery.ts), so home looks as if the follow had always been.
import { followEdges } from '../db/follows';
import { accountStatusesPage } from '../db/account_statuses';
import { putHomeEntries } from '../db/home_merge';
import { statusesByIds, type Status } from '../db/statuses';
import { entersHome, repliedToThirdParty } from '../policy';

/** How many of the followed account's latest statuses and reblogs a follow considers. */
export const MERGE_LIMIT = 20;

export async function mergeIntoHome(ownerId: string, authorId: string, showReblogs: boolean): Promise<number> {
  const latest = await accountStatusesPage(authorId, { limit: MERGE_LIMIT }, {});
  const repliedTo = [...new Set(latest.flatMap((s) => repliedToThirdParty(s) ?? []))];
  const [followed, originals] = await Promise.all([
    followEdges(ownerId, repliedTo),
    statusesByIds([...new Set(latest.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))]),
  ]);
  const admitted = latest.filter((status) => {
    // A reblog whose original is gone stays out.
    if (status.reblogOfId && !originals.has(status.reblogOfId)) return false;
    const third = repliedToThirdParty(status);
    return entersHome(status, { accountId: ownerId, follows: { showReblogs }, followsRepliedTo: third !== undefined && followed.has(third) });
  });
  const hasMedia = (s: Status) => ((s.reblogOfId ? originals.get(s.reblogOfId) : s)?.mediaIds.length ?? 0) > 0;
  await putHomeEntries(ownerId, admitted.map((status) => ({ status, hasMedia: hasMedia(status) })));
  return admitted.length;
}
