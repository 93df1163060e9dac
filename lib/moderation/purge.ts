// The background half of a suspension (./suspension.ts records the work, the sweeper runs this every minute):
// severing the follows of a suspended account, restoring them after an unsuspension, and, SUSPENSION_RETENTION_DAYS
// after the suspension, purging its data as Mastodon's DeleteAccountService does with reserve_username: its
// statuses (with their attachments' files), reblogs, favourites, bookmarks, follows and follow requests both ways,
// lists and list memberships, notifications received and those it caused others, notification requests both ways
// and its policy, blocks and mutes both ways, domain blocks, filters, endorsements, markers, notes, featured and
// followed tags, conversations, scheduled statuses, uploads never posted (items and files), tokens and push
// subscriptions, the login, and the profile, leaving the account item as a suspended tombstone whose username stays
// taken; then the Delete of the actor. As Mastodon, it keeps the strikes and appeals, and the reports it filed or
// that are about it, for the moderators.
//
// Every step reads a page of what is left and removes it, so a step run again (a run that stopped midway, two runs
// overlapping before the lease) starts where the last one ended; the step index is saved after each step, and each
// run stops at its time budget, leaving the rest to the next minute: an account of any size is purged over as many
// runs as it takes, and no request waits for it. Work whose suspension was lifted or replaced meanwhile is dropped
// before it does anything: a purge never starts for an account no longer suspended.
import { accountById, accountsByIds, updateAccount, type Account } from '../db/accounts';
import {
  deleteUpload,
  ownPartitions,
  purgeBlocksOfAccountPage,
  purgeMutesOfAccountPage,
  purgeNotificationRequestsPage,
  purgeNotificationsFromAccountPage,
  purgeOwnPartitionPage,
  uploadsPage,
} from '../db/account_purge';
import { accountStatusesPage } from '../db/account_statuses';
import { followRequestsPage, followRequestsSentBy } from '../db/follow_requests';
import { createFollow, deleteFollow, deleteFollowRequest, followersPage, followingPage, type Follow } from '../db/follows';
import { accountBookmarksPage, accountFavouritesPage, reblogFlagOf, removeBookmark, removeFavourite, removeReblog } from '../db/interactions';
import { destroyList, listsOf, membershipsOf, removeAccountEntries, removeMemberships } from '../db/lists';
import { mediaByIds } from '../db/media';
import { clearNotifications } from '../db/notifications';
import { pollById } from '../db/polls';
import { deletePushSubscription, pushSubscriptionsOf } from '../db/push_subscriptions';
import { removeScheduled, scheduledOf } from '../db/scheduled';
import { removeStatus } from '../db/status_writes';
import { statusById, type Status } from '../db/statuses';
import {
  advanceSuspensionWork,
  clearLogin,
  deleteMediaItemsOf,
  dueSuspensionWork,
  finishSuspensionWork,
  forgetSeveredFollows,
  keepSeveredFollow,
  leaseSuspensionWork,
  releaseSuspensionWork,
  severedFollowsPage,
  type SuspensionWork,
} from '../db/suspensions';
import { revokeToken, tokensOfAccount } from '../db/tokens';
import { followActivityId } from '../federation/activities';
import { sendRejectFollow, sendUndoFollow } from '../federation/outbox';
import { sendPurgedActorDelete } from '../federation/send_suspension';
import { follow } from '../graph/follow';
import { newId } from '../ids';
import { log } from '../log';
import { deleteMediaQuietly } from '../media/storage';
import { entersPublicTimelines } from '../policy';
import { isRemoteAccount } from '../policy/federation';
import { removeReblogsOf } from '../statuses/delete';
import { quotedStatusDeleted } from '../statuses/quotes';
import { endStreamsOfTokens } from '../streaming/withdraw';

/**
 * The bounds of one sweeper run: how long it works on suspensions (the sweeper's timeout is 300 s), how many work
 * items it looks at, the page each step reads. Tests and the bench lower them to see the runs chain.
 */
export const suspensionWorkLimits = { budgetMs: 60_000, items: 10, page: 50 };

/** One page of a step: true when the step has nothing left. */
type Step = (account: Account, work: SuspensionWork) => Promise<boolean>;

/** Pages are processed a few items at a time (each item is a transaction or two). */
async function eachOf<T>(items: T[], run: (item: T) => Promise<unknown>, width = 10): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(run));
}

/** The other accounts of a page of edges, by id. */
const othersOf = (ids: string[]) => (ids.length > 0 ? accountsByIds([...new Set(ids)]) : Promise.resolve(new Map<string, Account>()));

/** A page is the last when it is short, or when nothing on it could be removed (left behind rather than looped on). */
const lastPage = (read: number, removed: number) => read < suspensionWorkLimits.page || removed === 0;

const ourFollowId = (follower: Account, edge: Pick<Follow, 'id' | 'activityId'>) => edge.activityId ?? followActivityId(follower, edge.id);

/**
 * The edges `account` is followed by go: a remote follower's server hears a Reject of its Follow (a local account
 * suspended: as removing a follower), a local follower of a remote account sends the Undo of its own (the purge:
 * DeleteAccountService's undo_follows!). `keep`: the edges between local accounts are kept aside for unsuspending.
 */
async function dropFollowers(account: Account, keep: boolean): Promise<boolean> {
  const edges = await followersPage(account.id, { limit: suspensionWorkLimits.page });
  const others = await othersOf(edges.map((e) => e.followerId));
  let removed = 0;
  await eachOf(edges, async (edge) => {
    const follower = others.get(edge.followerId);
    if (keep && follower && !isRemoteAccount(follower)) await keepSeveredFollow(account.id, 'follower', edge);
    if (!(await deleteFollow(edge.followerId, account.id, { followerInbox: edge.followerInbox }))) return;
    removed++;
    if (!follower) return;
    if (isRemoteAccount(follower)) await sendRejectFollow(account, follower, edge.activityId);
    else if (isRemoteAccount(account)) await sendUndoFollow(follower, account, ourFollowId(follower, edge));
  });
  return lastPage(edges.length, removed);
}

/**
 * The edges of the accounts `account` follows go: a local account's follow of a remote one is undone (Undo of our
 * Follow); a remote account's follow of a local one is rejected by the local one (Mastodon's reject_remote_follows!).
 * `keep`: a local account's follows are kept aside for unsuspending.
 */
async function dropFollowing(account: Account, keep: boolean): Promise<boolean> {
  const edges = await followingPage(account.id, { limit: suspensionWorkLimits.page });
  const others = await othersOf(edges.map((e) => e.followedId));
  let removed = 0;
  await eachOf(edges, async (edge) => {
    const followed = others.get(edge.followedId);
    if (keep && !isRemoteAccount(account)) await keepSeveredFollow(account.id, 'following', edge);
    if (!(await deleteFollow(account.id, edge.followedId, { followerInbox: edge.followerInbox }))) return;
    removed++;
    if (!followed) return;
    if (isRemoteAccount(followed)) await sendUndoFollow(account, followed, ourFollowId(account, edge));
    else if (isRemoteAccount(account)) await sendRejectFollow(followed, account, edge.activityId);
  });
  return lastPage(edges.length, removed);
}

/** Severing at suspension: a local account's follows both ways (kept aside), a remote account's follows of ours. */
const SEVER: Step[] = [
  (account) => (isRemoteAccount(account) ? Promise.resolve(true) : dropFollowers(account, true)),
  (account) => dropFollowing(account, !isRemoteAccount(account)),
];

/** After an unsuspension, a page of the follows kept aside comes back. */
async function restoreFollows(account: Account): Promise<boolean> {
  const kept = await severedFollowsPage(account.id, suspensionWorkLimits.page);
  const others = await othersOf(kept.map((f) => (f.direction === 'follower' ? f.followerId : f.followedId)));
  await eachOf(kept, async (kept) => {
    const { direction: _direction, ...edge } = kept;
    const other = others.get(kept.direction === 'follower' ? edge.followerId : edge.followedId);
    // Gone meanwhile, or suspended itself: that follow stays severed.
    if (!other || other.suspendedAt) return;
    if (!isRemoteAccount(other)) {
      await createFollow(edge);
      return;
    }
    // A remote account it followed is asked again (its server accepts again, or holds a request if locked).
    try {
      await follow(account, other.id, { showReblogs: edge.showReblogs, notify: edge.notify });
    } catch (err) {
      log.warn('unsuspension: remote follow not asked again', { accountId: account.id, targetId: other.id, err });
    }
  });
  await forgetSeveredFollows(account.id, kept);
  return kept.length < suspensionWorkLimits.page;
}

/** A status of the purged account, with its reblogs by others and its attachments (their files too). */
async function purgeStatus(account: Account, status: Status): Promise<boolean> {
  if (status.reblogOfId) {
    const flag = await reblogFlagOf(account.id, status.reblogOfId);
    if (flag && flag.reblogId === status.id) return (await removeReblog(flag, (await statusById(status.reblogOfId)) !== undefined)) === 'changed';
    return false;
  }
  const [poll, parent, media] = await Promise.all([
    status.pollId ? pollById(status.pollId) : undefined,
    status.inReplyToId ? statusById(status.inReplyToId) : undefined,
    status.mediaIds.length > 0 ? mediaByIds(status.mediaIds) : new Map(),
  ]);
  const removed = await removeStatus(status, { poll, parentExists: parent !== undefined, listed: entersPublicTimelines(status) });
  if ('failed' in removed) return false;
  await removeReblogsOf(status);
  await quotedStatusDeleted(status);
  if (status.mediaIds.length > 0) {
    await deleteMediaQuietly([...media.values()].flatMap((m) => [m.fileKey, m.previewKey]));
    await deleteMediaItemsOf(status.mediaIds);
  }
  return true;
}

/** The purge, step by step (each a page at a time). */
const PURGE: Step[] = [
  // Follows both ways, follow requests both ways, and what the severing kept aside.
  (account) => dropFollowers(account, false),
  (account) => dropFollowing(account, false),
  async (account) => {
    const sent = await followRequestsSentBy(account.id, suspensionWorkLimits.page);
    let removed = 0;
    await eachOf(sent, async (r) => (await deleteFollowRequest(r.accountId, r.targetAccountId)) && removed++);
    return lastPage(sent.length, removed);
  },
  async (account) => {
    const received = await followRequestsPage(account.id, { limit: suspensionWorkLimits.page });
    let removed = 0;
    await eachOf(received, async (r) => (await deleteFollowRequest(r.accountId, r.targetAccountId)) && removed++);
    return lastPage(received.length, removed);
  },
  async (account) => {
    const kept = await severedFollowsPage(account.id, suspensionWorkLimits.page);
    await forgetSeveredFollows(account.id, kept);
    return kept.length < suspensionWorkLimits.page;
  },
  // Its statuses and reblogs, newest first.
  async (account) => {
    const statuses = await accountStatusesPage(account.id, { limit: suspensionWorkLimits.page }, {});
    let removed = 0;
    await eachOf(statuses, async (s) => (await purgeStatus(account, s)) && removed++);
    return lastPage(statuses.length, removed);
  },
  // Its favourites (the statuses' counts move back) and bookmarks.
  async (account) => {
    const favourites = await accountFavouritesPage(account.id, { limit: suspensionWorkLimits.page });
    let removed = 0;
    await eachOf(favourites, async (f) => (await removeFavourite(account.id, f.statusId)) !== 'unchanged' && removed++);
    return lastPage(favourites.length, removed);
  },
  async (account) => {
    const bookmarks = await accountBookmarksPage(account.id, { limit: suspensionWorkLimits.page });
    let removed = 0;
    await eachOf(bookmarks, async (b) => (await removeBookmark(account.id, b.statusId)) === 'changed' && removed++);
    return lastPage(bookmarks.length, removed);
  },
  // Its lists, and its place in other accounts' lists (with its entries there).
  async (account) => {
    for (const list of await listsOf(account.id)) await destroyList(list);
    const memberships = await membershipsOf(account.id);
    await removeMemberships(memberships);
    for (const m of memberships) await removeAccountEntries(m.listId, account.id);
    return true;
  },
  // The notifications it received.
  async (account) => {
    await clearNotifications(account.id);
    return true;
  },
  // Its tokens (with any stream still open on them) and push subscriptions.
  async (account) => {
    if (isRemoteAccount(account)) return true;
    const tokens = await tokensOfAccount(account.id);
    await endStreamsOfTokens(tokens.map((t) => t.id));
    await eachOf(tokens, (t) => revokeToken(t, t.clientId));
    await eachOf(await pushSubscriptionsOf(account.id), (s) => deletePushSubscription(account.id, s.tokenId));
    // The token list is read one page at a time (the newest first): more may be left.
    return tokens.length === 0;
  },
  // The profile becomes the tombstone (Mastodon's purge_profile!): blank, no login, its images' files gone.
  async (account) => {
    await deleteMediaQuietly([account.avatarKey, account.headerKey]);
    await updateAccount(account.id, {
      displayName: '',
      note: '',
      noteHtml: '',
      fields: [],
      fieldsHtml: [],
      locked: false,
      discoverable: false,
      avatarKey: null,
      headerKey: null,
      statusesCount: 0,
      followersCount: 0,
      followingCount: 0,
      followRequestsCount: 0,
      silencedAt: null,
    });
    if (!isRemoteAccount(account)) await clearLogin(account.id);
    return true;
  },
  // New steps go last, so that a purge under way when they came keeps its step index.
  // The notifications it caused others (follow, favourite, reblog, mention, poll, admin.*...), with its requests in
  // their filtered lists (Mastodon's purge_generated_notifications!).
  async (account) => {
    const { read, removed } = await purgeNotificationsFromAccountPage(account.id, suspensionWorkLimits.page);
    return lastPage(read, removed);
  },
  // The notification requests it received, and its notification policy.
  async (account) => {
    const { read, removed } = await purgeNotificationRequestsPage(account.id, suspensionWorkLimits.page);
    return lastPage(read, removed);
  },
  // Other accounts' blocks and mutes of it (block_relationships and mute_relationships, the other way round).
  async (account) => {
    const { read, removed } = await purgeBlocksOfAccountPage(account.id, suspensionWorkLimits.page);
    return lastPage(read, removed);
  },
  async (account) => {
    const { read, removed } = await purgeMutesOfAccountPage(account.id, suspensionWorkLimits.page);
    return lastPage(read, removed);
  },
  // What it kept of its own: blocks and domain blocks, mutes, filters, endorsements, markers, notes, featured tags,
  // followed tags, conversations; a step per partition.
  ...ownPartitions.map(
    (kind): Step =>
      async (account) =>
        (await purgeOwnPartitionPage(account.id, kind, suspensionWorkLimits.page)).read < suspensionWorkLimits.page,
  ),
  // Its scheduled statuses, with the attachments they held (items and files).
  async (account) => {
    const scheduled = await scheduledOf(account.id, { limit: suspensionWorkLimits.page });
    let removed = 0;
    await eachOf(scheduled, async (s) => {
      if (!(await removeScheduled(s))) return;
      removed++;
      const mediaIds = s.params.media_ids ?? [];
      if (mediaIds.length === 0) return;
      const media = [...(await mediaByIds(mediaIds)).values()].filter((m) => m.accountId === account.id);
      await deleteMediaQuietly(media.flatMap((m) => [m.fileKey, m.previewKey]));
      await deleteMediaItemsOf(media.map((m) => m.id));
    });
    return lastPage(scheduled.length, removed);
  },
  // Its uploads never posted (the posted ones went with their statuses): files, then items.
  async (account) => {
    const uploads = await uploadsPage(account.id, suspensionWorkLimits.page);
    let removed = 0;
    await eachOf(uploads, async (m) => {
      await deleteMediaQuietly([m.fileKey, m.previewKey]);
      if (await deleteUpload(m)) removed++;
    });
    return lastPage(uploads.length, removed);
  },
];

/** Runs `steps` from where `work` stopped until done or out of time. */
async function runSteps(steps: Step[], account: Account, work: SuspensionWork, leaseId: string, deadline: number): Promise<'done' | 'continues' | 'lost'> {
  let step = work.step;
  // At least one page per run, however little time is left: every run moves the work on.
  while (step < steps.length) {
    if (await steps[step]!(account, work)) {
      step++;
      if (!(await advanceSuspensionWork(work, leaseId, step, null))) return 'lost';
    }
    if (step < steps.length && Date.now() > deadline) {
      await releaseSuspensionWork(work, leaseId);
      return 'continues';
    }
  }
  return 'done';
}

/** Is `work` still what the account's state asks for? */
function current(work: SuspensionWork, account: Account | undefined): account is Account {
  if (!account) return false;
  if (work.mode === 'restore') return account.suspendedAt === null;
  return account.suspendedAt === work.suspendedAt && account.suspensionOrigin !== 'remote';
}

export type SuspensionSweep = { done: number; continues: number; dropped: number };

/** The sweeper's step: the suspension work due at `now`, within the run's budget. */
export async function runSuspensionWork(now: number = Date.now()): Promise<SuspensionSweep> {
  const deadline = Date.now() + suspensionWorkLimits.budgetMs;
  const result: SuspensionSweep = { done: 0, continues: 0, dropped: 0 };
  let first = true;
  for (const work of await dueSuspensionWork(new Date(now).toISOString(), suspensionWorkLimits.items)) {
    // The first item due is always taken, however little time is left: every run moves the work on.
    if (!first && Date.now() > deadline) break;
    first = false;
    const leaseId = newId();
    // Another run has it (or it changed since it was read).
    if (!(await leaseSuspensionWork(work, leaseId, now, suspensionWorkLimits.budgetMs + 60_000))) continue;
    const account = await accountById(work.accountId);
    if (!current(work, account)) {
      await finishSuspensionWork(work, leaseId);
      result.dropped++;
      continue;
    }
    const steps = work.kind === 'purge' ? PURGE : work.mode === 'restore' ? [restoreFollows] : SEVER;
    const outcome = await runSteps(steps, account, work, leaseId, deadline);
    if (outcome === 'continues') result.continues++;
    if (outcome !== 'done') continue;
    if (work.kind === 'purge') {
      await sendPurgedActorDelete(account, work.inboxes);
      log.info('suspension: account purged', { accountId: account.id });
    }
    await finishSuspensionWork(work, leaseId);
    result.done++;
  }
  return result;
}
