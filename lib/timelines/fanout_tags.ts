// The hashtag followers of a status, for the fan-out's first page (Mastodon's
// FanOutOnWriteService#deliver_to_hashtag_followers!): every local account following
// one of its tags, each once, read a page of one tag's followers at a time.
//
// The walk is capped at MAX_TAG_FOLLOWERS accounts per status. It runs inside the
// first page of the fan-out, in one worker invocation beside that page's 1,000
// followers, and that page is run again whole when anything in it fails; 10,000
// tag followers cost about 10 times a follower page (bench/tag-follow-fanout.ts),
// which stays well inside the worker's 60 s. Chaining tag-follower pages as their own
// queue messages (as the follower walk does) is what would lift the cap; beyond it
// the accounts that followed the tag last (highest ids) miss the status, not the first.
import { accountById } from '../db/accounts';
import { tagFollowersAfter } from '../db/tag_follows';
import { isRemoteStatus, type Status } from '../db/statuses';
import { log } from '../log';
import { authorListedPublicly, reachesTagFollowers } from '../policy';

/** Tag followers read per Query: as many as a page of the follower walk. */
export const TAG_FOLLOWERS_PAGE = 1000;
/** At most this many accounts receive a status through its tags (see above). */
export const MAX_TAG_FOLLOWERS = 10_000;

/** Does the status go to its tags' followers: public, no reblog, and (received) not from a silenced server? */
export async function goesToTagFollowers(status: Status): Promise<boolean> {
  if (!reachesTagFollowers(status)) return false;
  if (!isRemoteStatus(status)) return true;
  const author = await accountById(status.accountId);
  return author !== undefined && (await authorListedPublicly(author));
}

/**
 * Hands `each` the followers of `tags`, a page at a time, every account once (someone following two of
 * the tags is in the first page that names them), until `max` accounts or the last follower.
 */
export async function eachTagFollowerPage(
  tags: string[],
  each: (accountIds: string[]) => Promise<void>,
  opts: { pageSize?: number; max?: number } = {},
): Promise<number> {
  const max = opts.max ?? MAX_TAG_FOLLOWERS;
  const seen = new Set<string>();
  for (const tag of new Set(tags)) {
    let after: string | undefined;
    do {
      if (seen.size >= max) {
        log.warn('fanout: tag followers past the cap left out', { tag, max });
        return seen.size;
      }
      const page = await tagFollowersAfter(tag, after, Math.min(opts.pageSize ?? TAG_FOLLOWERS_PAGE, max - seen.size));
      const fresh = page.accountIds.filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      await each(fresh);
      after = page.next;
    } while (after !== undefined);
  }
  return seen.size;
}
