// A post's distribution is as durable as the post. Posting writes, in its transaction, a record that the
// distribution is owed (lib/db/fanout_owed.ts), then enqueues the first fan-out page; that page (followers'
// homes, streams, lists, tag followers, the Create to remote followers, the mention notifications) clears
// the record once done (./fanout_queue.ts). Whatever is lost between the commit and the end of that page (a
// failed or throttled enqueue, a timeout, a crash, a first page that keeps failing) leaves the record, and the
// sweeper enqueues the first page again once it is older than the grace period; an Idempotency-Key retry of the
// post does so at once. Running a first page again writes the same entries (keyed by owner and status), finds the
// next page claimed (FANOUT# markers), and notifies and counts once (NOTIF_ONCE, TAGCOUNTED): so a re-drive
// neither loses nor multiplies. Pages after the first travel by the queue alone (SQS keeps a message until its
// page is done); see the README on what the local stack, which has no SQS, can lose.
import { clearFanoutOwed, dueOwedFanouts, fanoutOwed, takeRedrive } from '../db/fanout_owed';
import type { Status } from '../db/statuses';
import { log } from '../log';
import { isRemoteMention } from '../policy';
import { enqueue } from '../queue';

/**
 * How long a distribution may stay owed before the sweeper re-drives it: more than the fan-out worker's
 * timeout (60 s), so a first page still running is not doubled, and well under the queue's visibility
 * timeout (360 s), after which SQS itself would retry a page that failed.
 */
export const OWED_GRACE_MS = 120_000;
/** Re-drives of one distribution at most: each waits twice as long as the one before (2, 4, 8, ... minutes). */
export const MAX_REDRIVES = 8;
/** Owed distributions re-driven per sweeper run at most; the rest follow on the next runs. */
export const MAX_REDRIVES_PER_RUN = 1000;

/** When a status posted at `now` is due for a re-drive (the owed record's first `nextAt`). */
export const distributionDueAt = (now: number = Date.now()) => now + OWED_GRACE_MS;

/** Enqueues the first page of a local status's distribution; throws when the queue refuses it. */
export const enqueueDistribution = (statusId: string) => enqueue('fanout', { type: 'create', statusId, owed: true });

/** A local status's mentions of local accounts, notified by its first fan-out page (remote ones hear of it from the Create). */
export async function notifyMentions(status: Pick<Status, 'id' | 'accountId' | 'mentions'>): Promise<void> {
  const local = status.mentions.filter((m) => m.id !== status.accountId && !isRemoteMention(m));
  await Promise.all(local.map((m) => enqueue('notify', { type: 'mention', accountId: m.id, fromAccountId: status.accountId, statusId: status.id })));
}

/** The first page is done (or was done by an earlier delivery): the distribution is no longer owed. */
export const distributionDone = (statusId: string) => clearFanoutOwed(statusId);

/** An Idempotency-Key retry of a post: if its distribution is still owed, it is enqueued again now. */
export async function redriveIfOwed(statusId: string): Promise<boolean> {
  if (!(await fanoutOwed(statusId))) return false;
  await enqueueDistribution(statusId);
  log.info('fanout: owed distribution re-driven by a retried post', { statusId });
  return true;
}

export type RedriveResult = { due: number; redriven: number; abandoned: number };

/**
 * The sweeper's part: every owed distribution of a status posted more than the grace period before `now` and
 * not re-driven lately is taken (a conditional update, so overlapping runs re-drive it once) and enqueued again.
 * One that has been re-driven MAX_REDRIVES times is given up loudly: its first page fails whatever is tried, and
 * the fan-out dead-letter queue's alarm has fired for it.
 */
export async function redriveOwedDistributions(now: number = Date.now()): Promise<RedriveResult> {
  const due = await dueOwedFanouts(now - OWED_GRACE_MS, now, MAX_REDRIVES_PER_RUN);
  let redriven = 0;
  let abandoned = 0;
  for (const owed of due) {
    if (owed.redrives >= MAX_REDRIVES) {
      log.error('fanout: owed distribution abandoned after re-drives', { statusId: owed.statusId, redrives: owed.redrives });
      await clearFanoutOwed(owed.statusId);
      abandoned++;
      continue;
    }
    if (!(await takeRedrive(owed, now + OWED_GRACE_MS * 2 ** (owed.redrives + 1)))) continue;
    try {
      await enqueueDistribution(owed.statusId);
      redriven++;
    } catch (err) {
      // Still owed: the next try comes when the backoff set above has passed.
      log.error('fanout: re-drive enqueue failed', { statusId: owed.statusId, err });
    }
  }
  if (due.length > 0) log.warn('sweeper: owed distributions re-driven', { due: due.length, redriven, abandoned });
  return { due: due.length, redriven, abandoned };
}
