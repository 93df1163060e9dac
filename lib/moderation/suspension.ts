// Suspending an account and lifting a suspension (Mastodon's SuspendAccountService and UnsuspendAccountService).
// The flag is the sanction (lib/policy/sanctions.ts reads it on every path); what a suspension does besides starts
// here, and what takes longer than a request runs in the sweeper (./purge.ts) from the work recorded here:
//
// - a local account: its tokens answer 403 from the flag on (lib/http/auth.ts) and its open streams end now; the
//   servers of its remote followers get the Update of its actor with `suspended: true`; its follows are severed in
//   the background (remote followers get a Reject of their Follow, the remote accounts it follows an Undo of ours;
//   the follows between local accounts, and its follows of remote accounts, are kept aside for unsuspending);
// - a remote account suspended by our moderators: its follows of our accounts are ended with a Reject, as Mastodon's
//   reject_remote_follows! (which Mastodon also says cannot be undone: nothing makes its server follow again);
//   nothing is fetched from it any more (lib/federation/actor_store.ts) and its activities are ignored (lib/inbox);
// - both: the data is kept SUSPENSION_RETENTION_DAYS, then purged by the sweeper (./purge.ts), leaving the account
//   item as a suspended tombstone that keeps its username reserved.
//
// A remote account suspended by its own server (origin `remote`: an Update of its actor with `suspended: true`, or a
// Delete of it, lib/inbox) is only flagged here: its server purges it, and tells us (Delete), as Mastodon expects.
//
// Lifting a local suspension within the retention restores it: the purge is called off, the follows kept aside come
// back (a remote account it followed is asked again with a new Follow), and the Update of its actor without
// `suspended` goes to the servers told before. What cannot come back: its remote followers (their servers dropped the
// follow on our Reject; they must follow again), and a remote account's follows of ours.
import { updateAccount, type Account } from '../db/accounts';
import { advancePurge, purgeWorkOf, scheduleSuspensionWork, scheduleUnsuspensionWork } from '../db/suspensions';
import { nowIso } from '../db/table';
import { tokensOfAccount } from '../db/tokens';
import { sendSuspensionUpdate, suspensionAudience } from '../federation/send_suspension';
import { isRemoteAccount } from '../policy/federation';
import { endStreamsOfTokens } from '../streaming/withdraw';

/** How long a suspended account's data is kept so that unsuspending restores it (Mastodon: 30 days). */
export const SUSPENSION_RETENTION_DAYS = 30;

/** When the data of a suspension that started at `suspendedAt` is purged. */
export const purgeDueAt = (suspendedAt: string): string => new Date(Date.parse(suspendedAt) + SUSPENSION_RETENTION_DAYS * 86_400_000).toISOString();

/**
 * Suspends `target` (idempotent: a suspension already in force keeps its start, its work and its origin; only its
 * streams are ended again, in case a run stopped before). The request pays a constant number of calls whatever the
 * account holds: the flag, its tokens and streams, one Query of its followers' servers, one transaction of work, and
 * the deliveries of one Update per server.
 */
export async function suspendAccount(target: Account, origin: 'local' | 'remote' = 'local'): Promise<Account> {
  const local = !isRemoteAccount(target);
  if (target.suspendedAt) {
    if (local) await endStreamsOfTokens((await tokensOfAccount(target.id)).map((t) => t.id));
    return target;
  }
  const suspendedAt = nowIso();
  const after = (await updateAccount(target.id, { suspendedAt, suspensionOrigin: origin })) ?? target;
  if (local) await endStreamsOfTokens((await tokensOfAccount(target.id)).map((t) => t.id));
  // Its own server suspended (or deleted) it: nothing more to do here, its server does the rest.
  if (origin === 'remote') return after;
  // Read before the severing takes the followers away: the later Update and Delete go to the same servers.
  const inboxes = await suspensionAudience(after);
  await scheduleSuspensionWork(after.id, suspendedAt, purgeDueAt(suspendedAt), inboxes, true);
  await sendSuspensionUpdate(after, inboxes);
  return after;
}

/**
 * Brings a local suspension's purge forward to now (Mastodon's Admin::AccountDeletionWorker, DELETE
 * /api/v1/admin/accounts/:id): the sweeper's next run starts it. False when nothing is left to purge.
 */
export async function purgeSuspendedNow(target: Account): Promise<boolean> {
  if (!target.suspendedAt || target.suspensionOrigin === 'remote') return false;
  return advancePurge(target.id, purgeDueAt(target.suspendedAt), nowIso());
}

/**
 * Lifts a suspension (idempotent). A local one: the purge is called off and the severed follows are restored in the
 * background, and other servers hear the actor again. A suspension whose data was already purged comes back empty.
 */
export async function unsuspendAccount(target: Account): Promise<Account> {
  if (!target.suspendedAt) return target;
  const after = (await updateAccount(target.id, { suspendedAt: null, suspensionOrigin: null })) ?? target;
  if (target.suspensionOrigin === 'remote') return after;
  const purgeAt = purgeDueAt(target.suspendedAt);
  const work = await purgeWorkOf(target.id, purgeAt);
  const told = work?.inboxes ?? [];
  // Purged already (no work left): nothing kept to restore.
  await scheduleUnsuspensionWork(target.id, target.suspendedAt, purgeAt, told, work !== undefined && !isRemoteAccount(target));
  await sendSuspensionUpdate(after, await suspensionAudience(after, told));
  return after;
}
