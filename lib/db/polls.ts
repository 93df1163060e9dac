// Polls and votes. A poll item carries its options with their counters; a vote
// is one item per (poll, account) under the poll's partition, written with
// attribute_not_exists so an account votes once.
import { z } from 'zod';
import { keys } from './keys';
import { batchGet, deleteItem, getItem, nowIso, queryAll, transact, type TransactItem } from './table';

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
