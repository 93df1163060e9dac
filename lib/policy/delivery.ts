// Who receives a status: the pure rules the fan-out applies to each candidate
// recipient (home, lists) and streaming to each channel, kept apart from the
// reads and writes around them. Mastodon's FanOutOnWriteService,
// FeedManager#filter_from_home? and #filter_from_list? decide the same.
import type { List } from '../db/lists';
import type { Status } from '../db/statuses';
import { isRemoteMention } from './federation';
import { isDirect, isPublic, openToAnyone, visibleToFollowers } from './visibility';

/** What the fan-out knows about one candidate recipient of `status`. */
export type Recipient = {
  accountId: string;
  /** The recipient's follow edge to the status's author, when there is one. */
  follows: { showReblogs: boolean } | undefined;
  /** For a reply to a third account: does the recipient follow the account replied to? */
  followsRepliedTo: boolean;
  /** A remote account (its follow edge says so): its home is on its own server. */
  remote?: boolean;
};

/**
 * Does this follower keep a home timeline here? A remote follower does not: its server builds
 * it from the Create we deliver (lib/federation/outbox.ts), so writing an entry here is waste.
 */
export const hasHomeHere = (edge: { followerRemote?: boolean } | undefined): boolean => !edge?.followerRemote;

export const mentionedIds = (status: Status): Set<string> => new Set(status.mentions.map((m) => m.id));

/**
 * The accounts around a status with no home here: the remote accounts it mentions
 * (a mention's `acct` is a full handle) and the author of a status from another server.
 */
export const remoteParticipants = (status: Pick<Status, 'accountId' | 'uri' | 'mentions'>): Set<string> =>
  new Set([...status.mentions.filter(isRemoteMention).map((m) => m.id), ...(status.uri !== null ? [status.accountId] : [])]);

/** Does the status reach the author's followers at all? A direct one reaches only its mentions, so the fan-out skips the follower walk. */
export const reachesFollowers = (status: Pick<Status, 'visibility'>): boolean => !isDirect(status);

/** Should `status` enter `recipient`'s home timeline? */
export function entersHome(status: Status, recipient: Recipient): boolean {
  if (recipient.remote) return false;
  if (recipient.accountId === status.accountId) return true;
  const mentioned = mentionedIds(status).has(recipient.accountId);
  if (isDirect(status)) return mentioned;
  if (!recipient.follows) {
    // Someone who does not follow the author sees a status on home only when it
    // is addressed to them (private or direct) and mentions them.
    return mentioned && visibleToFollowers(status);
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

/**
 * Does a status go to the homes of the local accounts following one of its hashtags? A public status that is
 * not a reblog, posted here or received (Mastodon's FanOutOnWriteService#broadcastable?; an author on a server
 * the operator silenced is left out too: the fan-out asks isSilencedAccount, which needs the author's account).
 */
export const reachesTagFollowers = (status: Pick<Status, 'visibility' | 'reblogOfId' | 'tags'>): boolean =>
  isPublic(status) && !status.reblogOfId && status.tags.length > 0;

/**
 * Must the tag delivery put `status` in the home of `recipient`, who follows one of its tags? Not the author's,
 * and not when the home rule already puts it there (the follower walk or the mentioned accounts' delivery does:
 * one entry and one stream event each). A follower whose home rule keeps it out (a reply to someone they do not
 * follow) gets it through the tag, as Mastodon's FeedManager#filter_from_tags? lets it through.
 */
export function entersHomeByTag(status: Status, recipient: Recipient): boolean {
  if (recipient.remote || recipient.accountId === status.accountId || !reachesTagFollowers(status)) return false;
  return !(recipient.follows && entersHome(status, recipient));
}

/**
 * May a deleted status have reached its tags' followers? Only a public one did; the delete message describes a
 * public reply to another account as unlisted (deletedVisibility), so both are taken.
 */
export const mayHaveReachedTagFollowers = (deleted: Pick<Status, 'visibility' | 'tags'>): boolean => openToAnyone(deleted) && deleted.tags.length > 0;

/** The account a reply is addressed to, when home delivery depends on following it. */
export const repliedToThirdParty = (status: Status): string | undefined =>
  status.inReplyToId && status.inReplyToAccountId && status.inReplyToAccountId !== status.accountId && !status.reblogOfId
    ? status.inReplyToAccountId
    : undefined;

/** Can the status enter any list? Direct statuses never do. */
export const mayEnterLists = (status: Pick<Status, 'visibility'>): boolean => !isDirect(status);

/** What the rule needs to know about one list and its owner for `status`. */
export type ListRecipient = {
  list: Pick<List, 'id' | 'ownerId' | 'repliesPolicy'>;
  /** The owner's follow edge to the status's author. */
  follows: { showReblogs: boolean } | undefined;
  /** For a reply to a third account: does the owner follow it? */
  followsRepliedTo: boolean;
  /** For a reply to a third account: is that account in the list? */
  repliedToInList: boolean;
};

/** Should `status` enter the list timeline of `recipient.list`? */
export function entersList(status: Status, recipient: ListRecipient): boolean {
  // The owner must follow the author (a list holds followed accounts only).
  if (!mayEnterLists(status) || !recipient.follows) return false;
  const owner = recipient.list.ownerId;
  if (!entersHome(status, { accountId: owner, follows: recipient.follows, followsRepliedTo: recipient.followsRepliedTo })) return false;
  const repliedTo = status.inReplyToAccountId;
  if (status.reblogOfId || !status.inReplyToId || !repliedTo || repliedTo === status.accountId || repliedTo === owner) return true;
  switch (recipient.list.repliesPolicy) {
    case 'followed':
      return true;
    case 'list':
      return recipient.repliedToInList;
    case 'none':
      return false;
  }
}

/** Does the status go to its recipients' `direct` streams (besides their home streams)? */
export const entersDirectStreams = (status: Pick<Status, 'visibility'>): boolean => isDirect(status);

/**
 * Did a deleted status reach the public and hashtag streams? Told from the
 * visibility its delete event carries (lib/policy/visibility.ts deletedVisibility).
 */
export const reachedPublicStreams = (deleted: Pick<Status, 'visibility'>): boolean => isPublic(deleted);
