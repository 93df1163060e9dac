// Delete: an actor removes an object of its own (Mastodon's
// ActivityPub::Activity::Delete). A Note (or its Tombstone, or its bare id) goes
// the way a local status is deleted (lib/statuses/delete.ts: the status, its
// entries, counters, reblogs, and the fan-out's `delete` to homes and streams).
// The actor itself deleted: it is suspended (origin remote) at once, then its account, statuses and follows go,
// in bounded rounds (a long history takes several runs of the activity), as Mastodon's DeleteAccountService
// without reserve_username.
import { updateAccount, type Account } from '../db/accounts';
import { accountStatusesPage } from '../db/account_statuses';
import { deleteRemoteAccount, remoteStatusIdByUri, updateRemoteAccount } from '../db/remote';
import { statusById } from '../db/statuses';
import { HttpError } from '../errors';
import { dropFollowsOf } from '../graph/remote_follows';
import { log } from '../log';
import { deleteStatus } from '../statuses/delete';
import { idOf } from '../federation/vocab';
import { onActorsServer, type Outcome, type Received } from './received';

/**
 * The bounds of one run of a Delete of an actor: statuses removed (each a transaction and a fan-out message),
 * a time budget within the worker's 60 s, follows and requests removed. Tests lower them to see the runs chain.
 */
export const actorDeleteLimits = { statusesPerRun: 200, budgetMs: 30_000, followsPerRun: 400 };
const STATUS_PAGE = 40;

/** A status of the actor, by its Note id: only the author deletes it (another actor's Delete changes nothing). */
async function deleteNote(received: Received, noteId: string): Promise<Outcome> {
  const statusId = await remoteStatusIdByUri(noteId);
  const status = statusId ? await statusById(statusId) : undefined;
  if (!status) return 'ignored';
  if (status.accountId !== received.actor.id) {
    log.warn('inbox: Delete of a status of another account ignored', { activityId: received.id, statusId: status.id });
    return 'ignored';
  }
  return (await removed(() => deleteStatus(received.actor, status))) ? 'applied' : 'ignored';
}

/** Runs a deletion; false when the status went meanwhile (a concurrent delivery deleted it). */
async function removed(run: () => Promise<void>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return false;
    throw err;
  }
}

/**
 * The actor is gone: first its key, so nothing more signed by it is accepted (a refetch finds no actor); then
 * its statuses newest first, its follows both ways, and the account with its pointers. Each run does a bounded
 * share and answers `more` until everything is gone.
 */
export async function deleteActor(actor: Account): Promise<Outcome> {
  // Suspended by its own server from the first run on (Mastodon marks it so before its DeleteAccountService): hidden
  // everywhere and its further activities ignored while the rounds below remove it.
  // Suspended by its own server (origin remote): only the flag, as lib/moderation/suspension.ts does for that origin
  // (a remote account has no tokens or streams here); not imported from there, which imports this folder.
  if (!actor.suspendedAt) await updateAccount(actor.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'remote' });
  if (actor.publicKeyPem !== null) await updateRemoteAccount(actor.id, { publicKeyPem: null, publicKeyId: null });
  const started = Date.now();
  let count = 0;
  for (;;) {
    const page = await accountStatusesPage(actor.id, { limit: Math.min(STATUS_PAGE, actorDeleteLimits.statusesPerRun) }, {});
    if (page.length === 0) break;
    let gone = 0;
    for (const status of page) if (await removed(() => deleteStatus(actor, status))) gone++;
    if (gone === 0) {
      // Nothing on this page would go (changed under each deletion): leave them rather than loop on them.
      log.warn('inbox: statuses of a deleted actor left behind', { accountId: actor.id, left: page.length });
      break;
    }
    count += page.length;
    if (count >= actorDeleteLimits.statusesPerRun || Date.now() - started > actorDeleteLimits.budgetMs) {
      log.info('inbox: actor deletion continues in another run', { accountId: actor.id, removed: count });
      return 'more';
    }
  }
  if (!(await dropFollowsOf(actor, actorDeleteLimits.followsPerRun))) return 'more';
  await deleteRemoteAccount(actor);
  log.info('inbox: remote account deleted', { accountId: actor.id, uri: actor.uri });
  return 'applied';
}

export async function remove(received: Received): Promise<Outcome> {
  const objectId = idOf(received.activity.object);
  if (!objectId) return 'ignored';
  if (objectId === received.actor.uri) return deleteActor(received.actor);
  // Another server's object is not this actor's to delete.
  if (!onActorsServer(received, objectId)) return 'ignored';
  return deleteNote(received, objectId);
}
