// What one delivery of one fan-out message does (its contract: lib/queue/messages.ts). A message is
// one page of followers: the producer (posting, deleting, reblogging) enqueues
// the first page, `{ type, statusId, ... }`; each page enqueues the next, the
// same message with `after` (the last follower it read), before it writes.
//
// What is guaranteed, on an SQS standard queue that delivers at least once:
// - no page is lost: page k's message is deleted only after page k+1 is
//   enqueued, so a page that fails or dies is retried and enqueues again;
// - every home entry is written once: entries are keyed by (owner, status), so
//   a page run twice rewrites the same items;
// - the chain does not multiply: the next page is enqueued by whoever claims its
//   marker (a conditional write, FANOUT#<status>), so deliveries of page k
//   enqueue page k+1 once between them; a claim whose claimant died before
//   enqueuing (older than CLAIM_STALE_MS) is taken over by the claimant's own
//   retry. SQS itself may still hand one message out twice: that second copy
//   stops at the page's `done` marker if the first finished, and otherwise runs
//   the page again (same items) and finds the next page claimed.
// - streaming: a page run again re-sends `update` (or `delete`) to the home
//   streams of that page's recipients who are listening, once per extra run:
//   at most maxReceiveCount (5) times for a page that keeps failing. Clients
//   key statuses by id, as they do on a reconnect.
import { claimFanoutPage, fanoutPageDone, markFanoutPageDone, markFanoutPageSent } from '../db/timelines';
import { recordTagUses } from '../db/tags';
import { requestCard } from '../cards/request';
import { tagNamesOf } from '../text/tags';
import { tagUseReach } from '../policy';
import { statusById } from '../db/statuses';
import { enqueue } from '../queue';
import type { FanoutMessage } from '../queue/messages';
import { log } from '../log';
import { fanOutDeletePage, fanOutPage } from './fanout';
import { fanOutUpdate } from './fanout_update';
import { continueSharedPublish } from '../streaming/publish';
import { countReply } from '../trends';
import { distributionDone, notifyMentions } from './fanout_owed';

/**
 * How old a claim must be before another delivery takes it over: longer than the fan-out worker lives (its
 * timeout, 60 s in functions/workers/functions.yml), shorter than the queue's visibility timeout (360 s,
 * infra/queues.yml), after which a claimant that died is retried and finds its claim stale.
 */
export const CLAIM_STALE_MS = 300_000;

/** The messages that walk followers page by page (an edit's `update` is one page, run again whole on a retry). */
type PagedMessage = Exclude<FanoutMessage, { type: 'update' | 'stream' }>;

/** Enqueues the page after `message`'s, unless another delivery of the same page has (or is about to). */
async function enqueueNextPage(message: PagedMessage, next: string): Promise<void> {
  if (!(await claimFanoutPage(message.statusId, message.type, next, CLAIM_STALE_MS))) {
    log.info('fanout: next page already enqueued', { statusId: message.statusId, type: message.type, after: next });
    return;
  }
  const nextMessage: PagedMessage = { ...message, after: next };
  await enqueue('fanout', nextMessage);
  await markFanoutPageSent(message.statusId, message.type, next);
}

/** One delivery of one page. Throws (and the message is retried) when a write fails. */
export async function processFanout(message: FanoutMessage): Promise<void> {
  // An edit has no pages and no markers: run again, it publishes the same version again (clients key statuses by id).
  if (message.type === 'update') return fanOutUpdate(message.statusId);
  // A page of public and hashtag listeners past the posting path's share: it queues its own next page.
  if (message.type === 'stream') return void (await continueSharedPublish(message));
  const after = message.after ?? '';
  // A local post's first page carries its owed distribution (./fanout_owed.ts).
  const owed = message.type === 'create' && message.owed === true && message.after === undefined;
  if (await fanoutPageDone(message.statusId, message.type, after)) {
    log.info('fanout: page delivered again after it was done', { statusId: message.statusId, type: message.type, after: message.after });
    // A delivery that died between marking the page done and clearing the record, re-driven since.
    if (owed) await distributionDone(message.statusId);
    return;
  }
  const onNext = (next: string) => enqueueNextPage(message, next);
  if (message.type === 'create') {
    // A local post's mention notifications go with its first page, so that an owed distribution covers them
    // (the notify worker writes each once, however often the page runs).
    const posted = owed ? await statusById(message.statusId) : undefined;
    if (posted) await notifyMentions(posted);
    await fanOutPage(message.statusId, { after: message.after, onNext });
    if (message.after === undefined) {
      // Hashtag usage counters (trends, featured tags) are kept here, off the POST path; counted once per status.
      // The preview card of its link is asked for here too (a reblog has none of its own).
      const status = owed ? posted : await statusById(message.statusId);
      if (status) await recordTagUses(status, tagUseReach(status), tagNamesOf(status));
      if (status) await requestCard(status);
      // A public reply counts toward its parent's trend (once per account, so a page run again adds nothing).
      if (status) await countReply(status);
    }
  } else {
    await fanOutDeletePage(message.statusId, message.accountId, message.mentionIds, { after: message.after, deleted: message.deleted, onNext });
  }
  await markFanoutPageDone(message.statusId, message.type, after);
  if (owed) await distributionDone(message.statusId);
}
