// Who receives what over federation: the pure rules behind the deliveries of
// lib/federation/outbox.ts, as Mastodon's StatusReachFinder and Account#inboxes
// decide them. The visibility questions are asked of ./visibility.ts.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import { isDirect, openToAnyone } from './visibility';

/** What delivery needs of an account: remote ones have `domain` and their inboxes. */
export type InboxHolder = Pick<Account, 'domain' | 'inboxUrl' | 'sharedInboxUrl'>;

/** A remote account (one whose home is on another server)? */
export const isRemoteAccount = (account: Pick<Account, 'domain'>): boolean => account.domain !== null;

/** A status's mention of an account on another server: its `acct` is a full handle (a local one's is the bare username). */
export const isRemoteMention = (mention: { acct: string }): boolean => mention.acct.includes('@');

/**
 * Where a status (or a profile change) for a remote account's server goes: its
 * shared inbox when it has one, so that one request serves every recipient
 * there, else its own inbox. Nothing for a local account.
 */
export function deliveryInbox(account: InboxHolder): string | undefined {
  if (!isRemoteAccount(account)) return undefined;
  return account.sharedInboxUrl ?? account.inboxUrl ?? undefined;
}

/**
 * Where an activity meant for one actor alone goes (Follow, Undo, Accept,
 * Reject): its own inbox, as Mastodon sends them; the shared one if it has none.
 */
export function personalInbox(account: InboxHolder): string | undefined {
  if (!isRemoteAccount(account)) return undefined;
  return account.inboxUrl ?? account.sharedInboxUrl ?? undefined;
}

/** Do the author's remote followers receive the status? All but a direct one, as at home. */
export const federatesToFollowers = (status: Pick<Status, 'visibility'>): boolean => !isDirect(status);

/**
 * Does the author of the status replied to receive a reply that does not mention
 * them? Only an open one (public, unlisted): a followers-only or direct reply goes
 * to those it addresses and no further.
 */
export const federatesToRepliedTo = (status: Pick<Status, 'visibility'>): boolean => openToAnyone(status);

/** The candidates around a status: its author's remote follower inboxes, the accounts it mentions, the author replied to. */
export type StatusAudience = {
  followerInboxes: string[];
  mentioned: InboxHolder[];
  repliedTo?: InboxHolder;
};

/**
 * The distinct inboxes a status's Create (and later its Delete) is delivered
 * to: the followers' inboxes unless it is direct, every mentioned remote
 * account, and the remote author replied to when the reply is open.
 */
export function statusInboxes(status: Pick<Status, 'visibility'>, audience: StatusAudience): string[] {
  const inboxes = new Set<string>();
  if (federatesToFollowers(status)) for (const inbox of audience.followerInboxes) inboxes.add(inbox);
  const accounts = [...audience.mentioned, ...(audience.repliedTo && federatesToRepliedTo(status) ? [audience.repliedTo] : [])];
  for (const account of accounts) {
    const inbox = deliveryInbox(account);
    if (inbox) inboxes.add(inbox);
  }
  return [...inboxes];
}

/** How a status's activities address their audience (`to`, `cc`), by visibility. */
export type Addressing = { to: string[]; cc: string[] };

/**
 * Mastodon's addressing: public → to the Public collection, cc the followers;
 * unlisted → to the followers, cc Public; private → the followers only; direct →
 * the mentioned only. Mentioned actors are in `cc` (in `to` for direct). Public
 * never appears for private and direct statuses.
 */
export function statusAddressing(
  status: Pick<Status, 'visibility'>,
  urls: { publicCollection: string; followers: string; mentioned: string[] },
): Addressing {
  const { publicCollection, followers, mentioned } = urls;
  switch (status.visibility) {
    case 'public':
      return { to: [publicCollection], cc: [followers, ...mentioned] };
    case 'unlisted':
      return { to: [followers], cc: [publicCollection, ...mentioned] };
    case 'private':
      return { to: [followers], cc: [...mentioned] };
    case 'direct':
      return { to: [...mentioned], cc: [] };
  }
}
