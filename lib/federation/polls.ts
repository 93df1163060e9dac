// Polls in ActivityPub's terms (Mastodon's Question): reading the poll a remote
// Question carries (Mastodon's PollParser), the Question fields of our own poll
// statuses (its NoteSerializer), a local account's vote on a remote poll (one
// Create(Note) with `name` per choice, as VoteService sends it) and the
// Update(Question) that carries a poll's new counts. Pure: what reads or sends
// is lib/inbox/ and ./send_polls.ts.
import type { Account } from '../db/accounts';
import type { Poll } from '../db/polls';
import { newId } from '../ids';
import { AS_CONTEXT, type Activity } from './activities';
import { withoutControls } from './sanitize';
import { apUrls } from './urls';
import { asArray, dateOf, objectOf, type ApDocument } from './vocab';

/** More options than any server offers (Mastodon allows 4 by default, 20 at most by setting): refused. */
export const MAX_REMOTE_OPTIONS = 20;
/** Longer option titles are refused (Mastodon's default limit is 50 characters): 1,500 UTF-8 bytes at most, 30,000 for 20. */
export const MAX_OPTION_TITLE = 500;
/** Counts beyond this are nonsense: read as this. */
const MAX_COUNT = 1_000_000_000;
/** A Question with no end: it never closes (our poll item needs a date). */
export const NEVER_ENDS = '9999-12-31T23:59:59.000Z';

/** What a Question says of its poll, in our terms. */
export type ReadPoll = {
  options: { title: string; votesCount: number }[];
  multiple: boolean;
  /** When it ends, or ended (`closed`; a closing time claimed ahead of `now` is read as now: closed means ended). */
  expiresAt: string;
  votesCount: number;
  votersCount: number;
};

const countOf = (value: unknown): number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? Math.min(value, MAX_COUNT) : 0;

/** An option: a `name`, and its votes in `replies.totalItems`. */
function optionOf(value: unknown): { title: string; votesCount: number } | undefined {
  const doc = objectOf(value);
  if (!doc || typeof doc.name !== 'string') return undefined;
  const title = withoutControls(doc.name).trim();
  if (title === '') return undefined;
  return { title, votesCount: countOf(objectOf(doc.replies)?.totalItems) };
}

/** `closed` (a time, or true) wins over `endTime`, as Mastodon reads it. */
function endOf(question: ApDocument, now: number): string {
  const closed = question.closed;
  if (closed !== undefined && closed !== null && closed !== false) {
    const at = dateOf(closed);
    return new Date(at && at.getTime() <= now ? at.getTime() : now).toISOString();
  }
  return dateOf(question.endTime)?.toISOString() ?? NEVER_ENDS;
}

/**
 * The poll of a Question: `oneOf` (single choice) or `anyOf` (multiple). `none` when it has no options (a
 * plain status then), `refused` when they are more, longer or less distinct than any poll we store.
 */
export function readQuestion(question: ApDocument, now: number = Date.now()): ReadPoll | 'none' | 'refused' {
  const multiple = question.oneOf === undefined && question.anyOf !== undefined;
  const items = asArray(multiple ? question.anyOf : question.oneOf);
  if (items.length === 0) return 'none';
  if (items.length > MAX_REMOTE_OPTIONS) return 'refused';
  const options = items.map(optionOf);
  if (options.some((o) => o === undefined || o.title.length > MAX_OPTION_TITLE)) return 'refused';
  const read = options as { title: string; votesCount: number }[];
  // A vote names its option: titles must tell the options apart.
  if (new Set(read.map((o) => o.title)).size !== read.length) return 'refused';
  const votesCount = Math.min(MAX_COUNT, read.reduce((sum, o) => sum + o.votesCount, 0));
  const voters = question.votersCount;
  // Without votersCount, a single-choice poll has a voter per vote; a multiple one at least as many as its top option.
  const votersCount = typeof voters === 'number' ? countOf(voters) : multiple ? Math.max(0, ...read.map((o) => o.votesCount)) : votesCount;
  return { options: read, multiple, expiresAt: endOf(question, now), votesCount, votersCount };
}

/** Has the poll ended by `now`? (lib/db/polls.ts isExpired, at a given instant.) */
const endedBy = (poll: Poll, now: number) => new Date(poll.expiresAt).getTime() <= now;

/**
 * The fields that make a Note of one of our poll statuses a Question: the options with their counts (none
 * shown while totals are hidden and the poll runs), `endTime`, `closed` once ended by `now`, `votersCount`.
 */
export function questionFields(poll: Poll, now: number = Date.now()): Record<string, unknown> {
  const ended = endedBy(poll, now);
  const showTotals = ended || !poll.hideTotals;
  const options = poll.options.map((o) => ({
    type: 'Note',
    name: o.title,
    replies: { type: 'Collection', totalItems: showTotals ? Math.max(0, o.votesCount) : 0 },
  }));
  return {
    type: 'Question',
    [poll.multiple ? 'anyOf' : 'oneOf']: options,
    endTime: poll.expiresAt,
    ...(ended ? { closed: poll.expiresAt } : {}),
    votersCount: Math.max(0, poll.votersCount),
  };
}

/** The id of `voter`'s vote for one option of a poll: under its actor, as Mastodon mints `#votes/<id>`. */
export const voteNoteId = (voter: Pick<Account, 'username'>, pollId: string, choice: number): string =>
  apUrls.activityId(voter.username, 'votes', `${pollId}/${choice}`);

/**
 * `voter`'s vote for the option `title` of the poll `questionUri` by `authorUri`: a Create of a Note with the
 * option's `name`, in reply to the Question, addressed to its author alone.
 */
export function voteActivity(voter: Pick<Account, 'username'>, vote: { pollId: string; choice: number; title: string }, questionUri: string, authorUri: string): Activity {
  const actor = apUrls.actor(voter.username);
  const id = voteNoteId(voter, vote.pollId, vote.choice);
  return {
    '@context': AS_CONTEXT,
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [authorUri],
    object: { id, type: 'Note', name: vote.title, attributedTo: actor, to: [authorUri], inReplyTo: questionUri },
  };
}

/** The Update of one of our poll statuses, rendered as a Question (its id: the status's, `#updates/<new id>`). */
export function updateQuestionActivity(author: Pick<Account, 'username'>, question: Record<string, unknown> & { id: string; to?: unknown; cc?: unknown }, context: unknown): Activity {
  return {
    '@context': context,
    id: `${question.id}#updates/${newId()}`,
    type: 'Update',
    actor: apUrls.actor(author.username),
    to: question.to,
    cc: question.cc,
    object: question,
  };
}

/** The poll item of a remote status, from what its Question says (its id is the status's: one poll per status). */
export function remotePoll(read: ReadPoll, status: { id: string; accountId: string; createdAt: string }): Poll {
  return {
    id: status.id,
    statusId: status.id,
    accountId: status.accountId,
    options: read.options,
    multiple: read.multiple,
    hideTotals: false,
    expiresAt: read.expiresAt,
    votesCount: read.votesCount,
    votersCount: read.votersCount,
    createdAt: status.createdAt,
    remote: true,
  };
}
