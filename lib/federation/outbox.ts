// What local actions send, and to whom: the Follow of a remote account and its
// Undo, the Accept or Reject of a remote account's Follow, the Create and Delete
// of a status, the Update and Delete of a profile. Each gathers its audience
// (lib/policy/federation.ts decides who is in it), builds the activity
// (./activities.ts, ./render.ts) and hands it to the deliver queue, signed by
// the local account that acted.
//
// Every send runs after the action it reports has committed: it never throws.
// A delivery that cannot be enqueued is logged, and the action stands, as a
// lost notification does (lib/graph/follow.ts notifyOf).
import { accountsByIds, type Account } from '../db/accounts';
import { followerInboxesOf } from '../db/follower_inboxes';
import type { Status } from '../db/statuses';
import { log } from '../log';
import { federatesToFollowers, isRemoteAccount, personalInbox, statusInboxes } from '../policy/federation';
import {
  answerFollowActivity,
  deletePersonActivity,
  deleteStatusActivity,
  followActivity,
  undoFollowActivity,
  updatePersonActivity,
} from './activities';
import { deliverTo } from './deliver';
import { actorUriOf, renderCreate, renderPerson } from './render';

/** Runs one send; a failure (building or enqueueing) is logged, never thrown to the committed action. */
export async function quietly(what: string, context: Record<string, unknown>, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    log.error('federation: activity not sent', { what, ...context, err });
  }
}

/** Enqueues one delivery per distinct inbox, signed by the local account `from`. */
export async function deliver(activity: Record<string, unknown>, inboxes: (string | undefined)[], from: Pick<Account, 'id'>): Promise<void> {
  const distinct = [...new Set(inboxes.filter((inbox): inbox is string => inbox !== undefined))];
  if (distinct.length === 0) return;
  await deliverTo(activity, distinct, { accountId: from.id });
}

/** Only a local account acting toward a remote one sends anything. */
export const crossesServers = (local: Account, remote: Account) => !isRemoteAccount(local) && isRemoteAccount(remote);

/** `follower` (local) asks to follow `target` (remote); the Follow's id is derived from the follow request's id. */
export async function sendFollow(follower: Account, target: Account, requestId: string): Promise<void> {
  if (!crossesServers(follower, target)) return;
  await quietly('Follow', { followerId: follower.id, targetId: target.id }, () =>
    deliver(followActivity(follower, target, requestId), [personalInbox(target)], follower),
  );
}

/** `follower` (local) unfollows `target` (remote) or withdraws its request: Undo of the stored Follow. */
export async function sendUndoFollow(follower: Account, target: Account, followActivityId: string): Promise<void> {
  if (!crossesServers(follower, target)) return;
  await quietly('Undo(Follow)', { followerId: follower.id, targetId: target.id }, () =>
    deliver(undoFollowActivity(follower, target, followActivityId), [personalInbox(target)], follower),
  );
}

/** `localAccount` lets `remoteFollower` follow it (an unlocked account at once, a locked one on authorizing). */
export async function sendAcceptFollow(localAccount: Account, remoteFollower: Account, followActivityId: string | undefined): Promise<void> {
  if (!crossesServers(localAccount, remoteFollower)) return;
  await quietly('Accept(Follow)', { accountId: localAccount.id, followerId: remoteFollower.id }, () =>
    deliver(answerFollowActivity('Accept', localAccount, remoteFollower, followActivityId), [personalInbox(remoteFollower)], localAccount),
  );
}

/** `localAccount` turns down `remoteFollower`'s Follow. */
export async function sendRejectFollow(localAccount: Account, remoteFollower: Account, followActivityId: string | undefined): Promise<void> {
  if (!crossesServers(localAccount, remoteFollower)) return;
  await quietly('Reject(Follow)', { accountId: localAccount.id, followerId: remoteFollower.id }, () =>
    deliver(answerFollowActivity('Reject', localAccount, remoteFollower, followActivityId), [personalInbox(remoteFollower)], localAccount),
  );
}

/** The inboxes of the account's remote followers (one per server that has a shared inbox): one Query. */
export const followerInboxes = async (accountId: string): Promise<string[]> => (await followerInboxesOf(accountId)).map((f) => f.inbox);

/**
 * Who a status reaches over federation (lib/policy/federation.ts statusInboxes)
 * and the actor URIs it mentions: one Query of the follower inboxes (none for a
 * direct status) and one batch read of the mentioned and replied-to accounts.
 */
export async function statusAudience(status: Status, author: Account): Promise<{ inboxes: string[]; mentionedUris: string[] }> {
  const mentionIds = status.mentions.map((m) => m.id);
  const accountIds = [...new Set([...mentionIds, ...(status.inReplyToAccountId ? [status.inReplyToAccountId] : [])])];
  const [followers, accounts] = await Promise.all([
    federatesToFollowers(status) ? followerInboxes(author.id) : Promise.resolve([]),
    accountIds.length > 0 ? accountsByIds(accountIds) : Promise.resolve(new Map<string, Account>()),
  ]);
  const mentioned = mentionIds.flatMap((id) => accounts.get(id) ?? []);
  const repliedTo = status.inReplyToAccountId ? accounts.get(status.inReplyToAccountId) : undefined;
  const mentionedUris = mentioned.flatMap((account) => actorUriOf(account) ?? []);
  return { inboxes: statusInboxes(status, { followerInboxes: followers, mentioned, repliedTo }), mentionedUris };
}

/** Statuses this server authored; remote ones (stored from an inbox) and reblogs (their Announce: ./send_interactions.ts) are not ours to send. */
export const ownPost = (status: Status, author: Account) => !isRemoteAccount(author) && status.uri === null && status.reblogOfId === null && status.accountId === author.id;

/** The Create of a new local status, to its remote audience. Nothing is read or rendered when it has none. */
export async function sendStatusCreate(status: Status, author: Account): Promise<void> {
  if (!ownPost(status, author)) return;
  await quietly('Create', { statusId: status.id }, async () => {
    const { inboxes } = await statusAudience(status, author);
    if (inboxes.length === 0) return;
    await deliver(await renderCreate(status, author), inboxes, author);
  });
}

/** The Delete of a local status, to where its Create went (the same rule over the same audience). */
export async function sendStatusDelete(status: Status, author: Account): Promise<void> {
  if (!ownPost(status, author)) return;
  await quietly('Delete', { statusId: status.id }, async () => {
    const { inboxes, mentionedUris } = await statusAudience(status, author);
    await deliver(deleteStatusActivity(status, author, mentionedUris), inboxes, author);
  });
}

/** A local account's new profile, to the servers of its remote followers. */
export async function sendPersonUpdate(account: Account): Promise<void> {
  if (isRemoteAccount(account)) return;
  await quietly('Update(Person)', { accountId: account.id }, async () => {
    const inboxes = await followerInboxes(account.id);
    if (inboxes.length === 0) return;
    await deliver(updatePersonActivity(account, await renderPerson(account)), inboxes, account);
  });
}

/** A local account is gone: its remote followers' servers drop it (call before its key pair goes). */
export async function sendPersonDelete(account: Account): Promise<void> {
  if (isRemoteAccount(account)) return;
  await quietly('Delete(Person)', { accountId: account.id }, async () => {
    await deliver(deletePersonActivity(account), await followerInboxes(account.id), account);
  });
}
