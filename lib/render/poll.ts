// Poll entity (https://docs.joinmastodon.org/entities/Poll/), Mastodon 3.5.
import { isExpired, type Poll } from '../db/polls';

/**
 * `ownVotes`: the viewer's chosen option indexes, undefined when they have not
 * voted. `viewerId`: the viewer, so the poll's author counts as having voted
 * (Mastodon's Poll#voted?). With `hide_totals`, option counts are null until
 * the poll ends.
 */
export function renderPoll(poll: Poll, ownVotes: number[] | undefined, viewerId?: string): Record<string, unknown> {
  const expired = isExpired(poll);
  const showTotals = expired || !poll.hideTotals;
  return {
    id: poll.id,
    expires_at: poll.expiresAt,
    expired,
    multiple: poll.multiple,
    votes_count: Math.max(0, poll.votesCount),
    voters_count: Math.max(0, poll.votersCount),
    voted: ownVotes !== undefined || (viewerId !== undefined && viewerId === poll.accountId),
    own_votes: ownVotes ?? [],
    options: poll.options.map((o) => ({ title: o.title, votes_count: showTotals ? Math.max(0, o.votesCount) : null })),
    emojis: [] as unknown[],
  };
}
