// Who gets a status in their home feed: the pure rule the fan-out applies to
// each candidate recipient, kept apart from the reads and writes around it.
// Mastodon's FanOutOnWriteService and FeedManager#filter_from_home? decide the same.
import type { Status } from '../db/statuses';

/** What the fan-out knows about one candidate recipient of `status`. */
export type Recipient = {
  accountId: string;
  /** The recipient's follow edge to the status's author, when there is one. */
  follows: { showReblogs: boolean } | undefined;
  /** For a reply to a third account: does the recipient follow the account replied to? */
  followsRepliedTo: boolean;
};

export const mentionedIds = (status: Status): Set<string> => new Set(status.mentions.map((m) => m.id));

/** Should `status` enter `recipient`'s home timeline? */
export function entersHome(status: Status, recipient: Recipient): boolean {
  if (recipient.accountId === status.accountId) return true;
  const mentioned = mentionedIds(status).has(recipient.accountId);
  if (status.visibility === 'direct') return mentioned;
  if (!recipient.follows) {
    // Someone who does not follow the author sees a status on home only when it
    // is addressed to them (private or direct) and mentions them.
    return mentioned && status.visibility === 'private';
  }
  if (status.reblogOfId) return recipient.follows.showReblogs;
  return replyPasses(status, recipient, mentioned);
}

/**
 * Replies reach a follower's home only when they reply to the author themself,
 * to the follower, to someone the follower follows, or mention the follower.
 */
function replyPasses(status: Status, recipient: Recipient, mentioned: boolean): boolean {
  const repliedTo = status.inReplyToAccountId;
  if (!status.inReplyToId || !repliedTo) return true;
  if (repliedTo === status.accountId || repliedTo === recipient.accountId || mentioned) return true;
  return recipient.followsRepliedTo;
}

/** The account a reply is addressed to, when home delivery depends on following it. */
export const repliedToThirdParty = (status: Status): string | undefined =>
  status.inReplyToId && status.inReplyToAccountId && status.inReplyToAccountId !== status.accountId && !status.reblogOfId
    ? status.inReplyToAccountId
    : undefined;
