// What polls send to other servers (Mastodon's VoteService and
// DistributePollUpdateWorker): a local account's vote on a remote poll goes to
// the poll's author as one Create(Note) per choice; our own poll, once its
// counts change or it ends, goes out again as an Update(Question) to where its
// status went and to its remote voters.
//
// Updates are debounced: a vote only marks the poll changed (lib/db/polls.ts
// markPollChanged), and the sweeper, once a minute, sends one Update per marked
// poll with the counts as they are then (Mastodon waits three minutes after a
// vote). A burst of votes thus costs one Update per minute, not one per vote.
import { accountById, accountsByIds, type Account } from '../db/accounts';
import { changedPolls, clearPollChanged, markPollChanged, pollById, votersOf, type Poll } from '../db/polls';
import { statusById, type Status } from '../db/statuses';
import { log } from '../log';
import { deliveryInbox, isRemoteAccount, personalInbox } from '../policy/federation';
import { crossesServers, deliver, ownPost, quietly, statusAudience } from './outbox';
import { updateQuestionActivity, voteActivity } from './polls';
import { DOCUMENT_CONTEXT, actorUriOf, noteOf, noteSources } from './render';

/** `voter` (local) voted `choices` on the remote poll of `status`: each choice to the poll's author. */
export async function sendPollVotes(voter: Account, poll: Poll, status: Status, choices: number[]): Promise<void> {
  if (!status.uri) return;
  const questionUri = status.uri;
  await quietly('Create(Note) vote', { pollId: poll.id, voterId: voter.id }, async () => {
    const author = await accountById(status.accountId);
    const authorUri = author ? actorUriOf(author) : undefined;
    if (!author || !authorUri || !crossesServers(voter, author)) return;
    for (const choice of choices) {
      const title = poll.options[choice]?.title;
      if (title === undefined) continue;
      await deliver(voteActivity(voter, { pollId: poll.id, choice, title }, questionUri, authorUri), [personalInbox(author)], voter);
    }
  });
}

/**
 * A vote changed the counts of a poll: ours is marked for the next Update(Question) (a remote one's counts are
 * its server's to send). With hidden totals nothing shows before the end, so nothing goes out (as Mastodon).
 */
export async function pollCountsChanged(poll: Poll): Promise<void> {
  if (poll.remote || poll.hideTotals) return;
  await quietly('mark poll changed', { pollId: poll.id }, () => markPollChanged(poll));
}

/** The remote voters' inboxes (shared where they have one). */
async function voterInboxes(pollId: string): Promise<string[]> {
  const voters = await accountsByIds(await votersOf(pollId));
  return [...voters.values()].flatMap((a) => (isRemoteAccount(a) ? deliveryInbox(a) ?? [] : []));
}

/** One poll's Update(Question), judged ended by `now`, to its status's remote audience and remote voters. */
async function sendPollUpdate(status: Status, author: Account, now: number): Promise<boolean> {
  const [{ inboxes }, voters, sources] = await Promise.all([statusAudience(status, author), voterInboxes(status.pollId!), noteSources([status])]);
  const audience = [...new Set([...inboxes, ...voters])];
  if (audience.length === 0) return false;
  const question = noteOf(status, author, { ...sources, now }) as Record<string, unknown> & { id: string };
  await deliver(updateQuestionActivity(author, question, DOCUMENT_CONTEXT), audience, author);
  return true;
}

/**
 * The sweeper's job: an Update(Question) for each poll marked changed since the last run. The mark is removed
 * before the poll is read, so a vote meanwhile marks it again and is sent next time; a send that fails is logged
 * and not retried (the next vote, or the poll's end, sends the counts again).
 */
export async function sendChangedPolls(now: number = Date.now()): Promise<{ updated: number }> {
  let updated = 0;
  for (const changed of await changedPolls()) {
    await clearPollChanged(changed.pollId);
    await quietly('Update(Question)', { pollId: changed.pollId }, async () => {
      const [status, poll] = await Promise.all([statusById(changed.statusId, true), pollById(changed.pollId, true)]);
      const author = status ? await accountById(status.accountId) : undefined;
      if (!status || !poll || !author || status.pollId !== poll.id || !ownPost(status, author)) return;
      if (await sendPollUpdate(status, author, now)) updated += 1;
    });
  }
  if (updated > 0) log.info('sweeper: poll updates sent', { updated });
  return { updated };
}
