// Opening the thread of a remote status asks its server for the replies we lack (Mastodon 4.5): the context answer
// carries `Mastodon-Async-Refresh` naming the refresh a client may poll (GET /api/v1_alpha/async_refreshes/:id) and
// then read the context again. As Mastodon's Status#should_fetch_replies?: only for a viewer who is logged in, a
// remote public or unlisted status at least config.fetchRepliesInitialWaitMinutes old (5), whose replies were not asked
// for within config.fetchRepliesCooldownMinutes (15). One viewer's request starts it (a conditional update of the status), the
// others opening the thread meanwhile are told of the same refresh; the fetching itself is the remoteMedia queue's
// (lib/federation/replies.ts).
//
// What it costs the context request: nothing for a local status, a logged-out viewer, or a remote one outside the
// two windows; one GetItem (the refresh) within the cooldown; the claim, the refresh's Put and a queue message when
// it starts one.
import type { Account } from '../db/accounts';
import { asyncRefreshById, createAsyncRefresh, finishAsyncRefresh, type AsyncRefresh } from '../db/async_refreshes';
import { config } from '../config';
import { claimRepliesFetch, isRemoteStatus, type Status } from '../db/statuses';
import { secretToken } from '../ids';
import { log } from '../log';
import { enqueue } from '../queue';

/** What the header tells a client to wait between polls, as Mastodon's default. */
export const REFRESH_RETRY_SECONDS = 3;

const minutesAgo = (minutes: number, now: number) => new Date(now - minutes * 60_000).toISOString();

/** Mastodon's Status#should_fetch_replies?, for a status as read. */
export function shouldFetchReplies(status: Status, now = Date.now()): boolean {
  if (!isRemoteStatus(status) || (status.visibility !== 'public' && status.visibility !== 'unlisted')) return false;
  if (status.createdAt > minutesAgo(config.fetchRepliesInitialWaitMinutes, now)) return false;
  return status.fetchedRepliesAt === undefined || status.fetchedRepliesAt <= minutesAgo(config.fetchRepliesCooldownMinutes, now);
}

/** The refresh a viewer of the thread is to be told of: one running already, or one started now; none otherwise. */
export async function repliesRefreshFor(status: Status, viewer: Account | undefined, now = Date.now()): Promise<AsyncRefresh | undefined> {
  if (!viewer || !isRemoteStatus(status)) return undefined;
  if (!shouldFetchReplies(status, now)) {
    // Within the cooldown: the refresh that started it may still run.
    if (!status.repliesRefreshId || status.fetchedRepliesAt === undefined || status.fetchedRepliesAt <= minutesAgo(config.fetchRepliesCooldownMinutes, now)) return undefined;
    const running = await asyncRefreshById(status.repliesRefreshId);
    return running?.status === 'running' ? running : undefined;
  }
  const id = secretToken(18);
  if (!(await claimRepliesFetch(status.id, id, new Date(now).toISOString(), minutesAgo(config.fetchRepliesCooldownMinutes, now)))) return undefined;
  const refresh = await createAsyncRefresh(id);
  try {
    await enqueue('remoteMedia', { kind: 'replies', statusId: status.id, refreshId: id });
  } catch (err) {
    // Nobody will run it: not a refresh to poll. The next viewer after the cooldown asks again.
    log.error('replies: could not queue the fetch', { statusId: status.id, err });
    await finishAsyncRefresh(id);
    return undefined;
  }
  return refresh;
}

/** The header Mastodon sends for a running refresh. */
export const asyncRefreshHeader = (refresh: AsyncRefresh): Record<string, string> => ({
  'Mastodon-Async-Refresh': `id="${refresh.id}", retry=${REFRESH_RETRY_SECONDS}, result_count=${refresh.resultCount}`,
});
