// A vote on one of our polls (Mastodon's ActivityPub::Activity::Create#poll_vote?):
// a Create of a Note with a `name` in reply to one of our poll statuses. It is
// counted, never stored as a status; a vote the poll cannot take (ended, an
// option it does not have, a second choice on a single-choice poll, a voter who
// may not see the poll) is ignored, and nothing is written. The same choice
// again only asks once more for the poll's Update (a redelivery completes).
import { addVoteChoice, pollById, pollVote } from '../db/polls';
import { statusById, type Status } from '../db/statuses';
import { pollCountsChanged } from '../federation/send_polls';
import { parseLocalUrl } from '../federation/urls';
import { idOf, idsOf, typeOf, type ApDocument } from '../federation/vocab';
import { blockedBetween, mayView } from '../policy';
import type { Outcome, Received } from './received';

/** Our status a Note answers, when the Note answers one of ours that has a poll. */
async function pollStatusAnswered(note: ApDocument): Promise<Status | undefined> {
  const inReplyTo = idOf(note.inReplyTo);
  const target = inReplyTo ? parseLocalUrl(inReplyTo) : undefined;
  if (target?.kind !== 'status') return undefined;
  const status = await statusById(target.statusId);
  return status && status.uri === null && status.pollId ? status : undefined;
}

/**
 * The vote `note` casts, counted: `undefined` when the Note is no vote (no `name`, or not in reply to one of
 * our polls: a status then, stored as any other).
 */
export async function receiveVote(received: Received, note: ApDocument): Promise<Outcome | undefined> {
  if (typeOf(note) !== 'Note' || typeof note.name !== 'string') return undefined;
  const status = await pollStatusAnswered(note);
  if (!status) return undefined;
  // A vote is its voter's own: attributed to the actor that signed it, by someone who may see the poll.
  if (idsOf(note.attributedTo)[0] !== received.actor.uri) return 'ignored';
  if (!(await mayView(received.actor, status)) || (await blockedBetween(status.accountId, received.actor.id))) return 'ignored';
  const poll = await pollById(status.pollId!);
  const choice = poll ? poll.options.findIndex((o) => o.title === note.name) : -1;
  if (!poll || choice < 0) return 'ignored';
  const counted = await addVoteChoice(poll.id, received.actor.id, choice);
  // This very choice counted already: a redelivery after a crash, whose Update request may not have been made.
  const replayed = counted === 'voted' && (await pollVote(poll.id, received.actor.id))?.choices.includes(choice);
  if (counted !== 'counted' && !replayed) return 'ignored';
  await pollCountsChanged(poll);
  return 'applied';
}
