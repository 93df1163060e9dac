// Polls and votes. A poll item carries its options with their counters; a vote
// is one item per (poll, account) under the poll's partition, written with
// attribute_not_exists so an account votes once.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, deleteItem, getItem, nowIso, putItem, queryAll, transact, type TransactItem } from './table';

export const pollOption = z.object({ title: z.string(), votesCount: z.number().int().default(0) });

export const pollItem = z.object({
  id: z.string(),
  statusId: z.string(),
  accountId: z.string(),
  options: z.array(pollOption),
  multiple: z.boolean().default(false),
  hideTotals: z.boolean().default(false),
  expiresAt: z.string(),
  votesCount: z.number().int().default(0),
  votersCount: z.number().int().default(0),
  createdAt: z.string(),
  /** A poll of a remote status: its counts are its server's (Update(Question)), its author is not ours to notify. */
  remote: z.boolean().optional(),
});
export type Poll = z.infer<typeof pollItem>;

export const pollVoteItem = z.object({
  pollId: z.string(),
  accountId: z.string(),
  /** Indexes into the poll's options, as chosen. */
  choices: z.array(z.number().int()),
  createdAt: z.string(),
});
export type PollVote = z.infer<typeof pollVoteItem>;

export const pollExpiryItem = z.object({ pollId: z.string(), statusId: z.string(), expiresAt: z.string() });

export const pollRecord = (poll: Poll) => ({ ...keys.poll(poll.id), ...pollItem.parse(poll) });

/** The minute bucket (YYYY-MM-DDTHH:MM, UTC) a poll closes in; the sweeper reads one bucket per minute. */
export const expiryMinute = (expiresAt: string) => new Date(expiresAt).toISOString().slice(0, 16);

/** The sweeper's entry for a poll, written with the poll. */
export const pollExpiryRecord = (poll: Poll) => ({
  ...keys.pollExpiry(expiryMinute(poll.expiresAt), poll.id),
  ...pollExpiryItem.parse({ pollId: poll.id, statusId: poll.statusId, expiresAt: poll.expiresAt }),
});

/** Transaction entries that remove a poll with its status (votes stay until TTL-less cleanup; they are unreachable). */
export const deletePollItems = (poll: Poll): TransactItem[] => [
  { Delete: { Key: keys.poll(poll.id) } },
  { Delete: { Key: keys.pollExpiry(expiryMinute(poll.expiresAt), poll.id) } },
];

export const pollById = (id: string, consistent = false) => getItem(keys.poll(id), pollItem, consistent);

export async function pollsByIds(ids: string[]): Promise<Map<string, Poll>> {
  const found = await batchGet(ids.map(keys.poll), pollItem);
  return new Map([...found.values()].map((p) => [p.id, p]));
}

export const pollVote = (pollId: string, accountId: string) => getItem(keys.pollVote(pollId, accountId), pollVoteItem);

/** The accounts that voted on a poll (every page of its vote items), in vote-key order. */
export async function votersOf(pollId: string): Promise<string[]> {
  const votes = await queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :vote)',
      ExpressionAttributeValues: { ':pk': keys.pollPartition(pollId), ':vote': keys.pollVotePrefix },
    },
    pollVoteItem,
  );
  return votes.map((v) => v.accountId);
}

/** Every entry of one minute's poll-expiry bucket (all pages). */
export const pollExpiryEntries = (minute: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.pollExpiryPartition(minute) } }, pollExpiryItem);

/** Takes a poll out of a minute's bucket once the sweeper has dealt with it. */
export const removePollExpiry = async (minute: string, pollId: string): Promise<void> => {
  await deleteItem(keys.pollExpiry(minute, pollId), z.unknown());
};

export const isExpired = (poll: Poll, now = Date.now()) => new Date(poll.expiresAt).getTime() <= now;

export type VoteResult =
  | { ok: true; poll: Poll; choices: number[] }
  | { ok: false; reason: 'missing' | 'expired' | 'voted' | 'invalid' };

/**
 * Records `accountId`'s vote: the vote item (once per account), each chosen
 * option's counter, votesCount and votersCount, in one transaction that fails
 * if the poll has expired meanwhile. Choices are option indexes; a single-choice
 * poll takes exactly one. Answers the poll as it is after the vote.
 */
export async function castVote(pollId: string, accountId: string, choices: number[]): Promise<VoteResult> {
  const poll = await pollById(pollId);
  if (!poll) return { ok: false, reason: 'missing' };
  if (isExpired(poll)) return { ok: false, reason: 'expired' };
  const unique = [...new Set(choices)];
  const valid =
    unique.length > 0 &&
    unique.length === choices.length &&
    (poll.multiple || unique.length === 1) &&
    unique.every((c) => Number.isInteger(c) && c >= 0 && c < poll.options.length);
  if (!valid) return { ok: false, reason: 'invalid' };

  const now = nowIso();
  const optionNames: Record<string, string> = {};
  const sets = unique.map((c, i) => {
    optionNames[`#o${i}`] = 'options';
    return `#o${i}[${c}].votesCount = #o${i}[${c}].votesCount + :one`;
  });
  const result = await transact([
    {
      Put: {
        Item: { ...keys.pollVote(pollId, accountId), ...pollVoteItem.parse({ pollId, accountId, choices: unique, createdAt: now }) },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Update: {
        Key: keys.poll(pollId),
        UpdateExpression: `SET ${sets.join(', ')} ADD votesCount :n, votersCount :one`,
        ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
        ExpressionAttributeNames: optionNames,
        ExpressionAttributeValues: { ':one': 1, ':n': unique.length, ':now': now },
      },
    },
  ]);
  if (!result.ok) {
    if (result.failed.includes(0)) return { ok: false, reason: 'voted' };
    const current = await pollById(pollId, true);
    return { ok: false, reason: current ? 'expired' : 'missing' };
  }
  const updated = await pollById(pollId, true);
  if (!updated) return { ok: false, reason: 'missing' };
  return { ok: true, poll: updated, choices: unique };
}

// ---- polls across servers (lib/inbox/create.ts votes, lib/inbox/update_question.ts, lib/federation/send_polls.ts) ----

export type ChoiceResult = 'counted' | 'voted' | 'expired' | 'missing' | 'invalid';

/** Why a vote transaction was cancelled: the vote item's condition (a choice already made), or the poll's. */
async function failureOf(failed: number[], pollId: string): Promise<ChoiceResult> {
  if (failed.includes(0)) return 'voted';
  return (await pollById(pollId, true)) ? 'expired' : 'missing';
}

/** The poll's side of a vote for option `choice`: its counter and votesCount (votersCount for a new voter), while it runs. */
const countChoice = (pollId: string, choice: number, newVoter: boolean, now: string): TransactItem => ({
  Update: {
    Key: keys.poll(pollId),
    UpdateExpression: `SET #options[${choice}].votesCount = #options[${choice}].votesCount + :one ADD votesCount :one${newVoter ? ', votersCount :one' : ''}`,
    ConditionExpression: 'attribute_exists(PK) AND expiresAt > :now',
    ExpressionAttributeNames: { '#options': 'options' },
    ExpressionAttributeValues: { ':one': 1, ':now': now },
  },
});

/**
 * Records one choice of a remote account's vote (a vote arrives as one Create(Note) per option, Mastodon's
 * poll_vote!): its first choice makes the vote item and counts a voter; a further one, on a multiple-choice
 * poll only, joins the item. `voted` when the choice was made already, or the poll is single-choice and the
 * account voted; nothing is written then, nor when the poll has ended (`expired`).
 */
export async function addVoteChoice(pollId: string, accountId: string, choice: number): Promise<ChoiceResult> {
  const poll = await pollById(pollId, true);
  if (!poll) return 'missing';
  if (isExpired(poll)) return 'expired';
  if (!Number.isInteger(choice) || choice < 0 || choice >= poll.options.length) return 'invalid';
  const now = nowIso();
  const existing = await pollVote(pollId, accountId);
  if (!existing) {
    const vote = pollVoteItem.parse({ pollId, accountId, choices: [choice], createdAt: now });
    const result = await transact([
      { Put: { Item: { ...keys.pollVote(pollId, accountId), ...vote }, ConditionExpression: 'attribute_not_exists(PK)' } },
      countChoice(pollId, choice, true, now),
    ]);
    return result.ok ? 'counted' : failureOf(result.failed, pollId);
  }
  if (!poll.multiple || existing.choices.includes(choice)) return 'voted';
  const result = await transact([
    {
      Update: {
        Key: keys.pollVote(pollId, accountId),
        UpdateExpression: 'SET choices = list_append(choices, :choice)',
        ConditionExpression: 'attribute_exists(PK) AND NOT contains(choices, :number)',
        ExpressionAttributeValues: { ':choice': [choice], ':number': choice },
      },
    },
    countChoice(pollId, choice, false, now),
  ]);
  return result.ok ? 'counted' : failureOf(result.failed, pollId);
}

export type PollTallies = Pick<Poll, 'votesCount' | 'votersCount' | 'expiresAt'> & { counts: number[] };

/**
 * A remote poll's counts and end as its server states them (Update(Question)). The expiry bucket entry
 * follows a moved end, so that local voters hear of the end when it comes. False when the poll is gone.
 */
export async function refreshPollTallies(poll: Poll, tallies: PollTallies): Promise<boolean> {
  const sets = tallies.counts.map((_, i) => `#options[${i}].votesCount = :c${i}`);
  const values: Record<string, unknown> = Object.fromEntries(tallies.counts.map((c, i) => [`:c${i}`, c]));
  const items: TransactItem[] = [
    {
      Update: {
        Key: keys.poll(poll.id),
        UpdateExpression: `SET ${[...sets, 'votesCount = :votes', 'votersCount = :voters', 'expiresAt = :end'].join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#options': 'options' },
        ExpressionAttributeValues: { ...values, ':votes': tallies.votesCount, ':voters': tallies.votersCount, ':end': tallies.expiresAt },
      },
    },
  ];
  if (tallies.expiresAt !== poll.expiresAt) {
    // An end already past goes in the current minute's bucket: the sweeper reads that one again, never an older one.
    const bucketAt = new Date(Math.max(Date.parse(tallies.expiresAt), Date.now())).toISOString();
    items.push(
      { Delete: { Key: keys.pollExpiry(expiryMinute(poll.expiresAt), poll.id) } },
      { Put: { Item: pollExpiryRecord({ ...poll, expiresAt: bucketAt }) } },
    );
  }
  return (await transact(items)).ok;
}

export const pollChangedItem = z.object({ pollId: z.string(), statusId: z.string() });

/** Notes that one of our polls changed (a vote, its end): the sweeper sends its Update(Question). Idempotent. */
export async function markPollChanged(poll: Pick<Poll, 'id' | 'statusId'>): Promise<void> {
  await putItem({ ...keys.pollChanged(poll.id), ...pollChangedItem.parse({ pollId: poll.id, statusId: poll.statusId }) });
}

/** Every poll marked changed (all pages). */
export const changedPolls = () =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.pollChangedPartition } }, pollChangedItem);

/** Unmarks a poll, before its Update is rendered: a vote meanwhile marks it again. */
export const clearPollChanged = async (pollId: string): Promise<void> => {
  await deleteItem(keys.pollChanged(pollId), z.unknown());
};
