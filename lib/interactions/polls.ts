// Polls: reading one (its status's visibility decides who may) and voting
// (Mastodon's VoteService and PollVoteValidator). A vote on a remote poll goes to
// its author's server; one on ours marks it for an Update(Question) to the others.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { castVote, isExpired, pollById, pollVote, type Poll } from '../db/polls';
import { notFound, unprocessable } from '../errors';
import { pollCountsChanged, sendPollVotes } from '../federation/send_polls';
import { isId } from '../ids';
import { viewableStatus } from '../policy';

// Mastodon 3.5's texts (polls.errors), as ActiveRecord reports them.
const POLL_ERRORS = {
  expired: 'The poll has already ended',
  invalidChoice: 'The chosen vote option does not exist',
  selfVote: 'You cannot vote in your own polls',
  alreadyVoted: 'You have already voted on this poll',
};
const invalid = (message: string) => unprocessable(`Validation failed: ${message}`);

export type ShownPoll = { poll: Poll; ownVotes: number[] | undefined };

/** The poll and its status if the viewer may see the status; 404 otherwise. */
async function visiblePoll(id: string, viewer: Account | undefined): Promise<{ poll: Poll; status: Status }> {
  if (!isId(id)) throw notFound();
  const poll = await pollById(id);
  if (!poll) throw notFound();
  return { poll, status: await viewableStatus(poll.statusId, viewer) };
}

export async function showPoll(id: string, viewer: Account | undefined): Promise<ShownPoll> {
  const { poll } = await visiblePoll(id, viewer);
  const vote = viewer ? await pollVote(poll.id, viewer.id) : undefined;
  return { poll, ownVotes: vote?.choices };
}

/** Records the viewer's vote; answers the poll after it, with the viewer's choices. */
export async function vote(id: string, viewer: Account, choices: number[]): Promise<ShownPoll> {
  const { poll, status } = await visiblePoll(id, viewer);
  if (isExpired(poll)) throw invalid(POLL_ERRORS.expired);
  if (choices.some((c) => c < 0 || c >= poll.options.length)) throw invalid(POLL_ERRORS.invalidChoice);
  if (poll.accountId === viewer.id) throw invalid(POLL_ERRORS.selfVote);
  // Mastodon records one vote per choice: a second choice on a single-choice
  // poll, or the same choice twice, fails as a second vote.
  if (new Set(choices).size !== choices.length || (!poll.multiple && choices.length > 1)) throw invalid(POLL_ERRORS.alreadyVoted);
  const result = await castVote(poll.id, viewer.id, choices);
  if (result.ok) {
    if (poll.remote) await sendPollVotes(viewer, result.poll, status, result.choices);
    else await pollCountsChanged(result.poll);
    return { poll: result.poll, ownVotes: result.choices };
  }
  switch (result.reason) {
    case 'missing':
      throw notFound();
    case 'expired':
      throw invalid(POLL_ERRORS.expired);
    case 'voted':
      throw invalid(POLL_ERRORS.alreadyVoted);
    case 'invalid':
      throw invalid(POLL_ERRORS.invalidChoice);
  }
}
