// A remote actor removed from this server: its account, statuses and follows, in bounded rounds (a long history
// takes several runs), as Mastodon's DeleteAccountService without reserve_username. Two callers: a Delete of the
// actor from its own server (lib/inbox/delete.ts), and the purge of a domain our moderators suspended
// (lib/moderation/domain_blocks.ts).
import type { Account } from '../db/accounts';
import { accountStatusesPage } from '../db/account_statuses';
import { deleteRemoteAccount, updateRemoteAccount } from '../db/remote';
import { HttpError } from '../errors';
import { dropFollowsOf } from '../graph/remote_follows';
import { log } from '../log';
import { deleteStatus } from '../statuses/delete';
import { suspendAccount } from './suspension';

/**
 * The bounds of one run of a remote actor's removal: statuses removed (each a transaction and a fan-out message),
 * a time budget within the worker's 60 s, follows and requests removed. Tests lower them to see the runs chain.
 */
export const remoteRemovalLimits = { statusesPerRun: 200, budgetMs: 30_000, followsPerRun: 400 };
const STATUS_PAGE = 40;

/** Runs a deletion; false when the status went meanwhile (a concurrent delivery deleted it). */
export async function removedUnlessGone(run: () => Promise<void>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return false;
    throw err;
  }
}

/**
 * The actor is gone: first it is suspended by its own server (origin remote: hidden everywhere and its further
 * activities ignored while the rounds remove it, as Mastodon marks it before its DeleteAccountService), then its key
 * goes, so nothing more signed by it is accepted (a refetch finds no actor); then its statuses newest first, its
 * follows both ways, and the account with its pointers. Each run does a bounded share and answers `more` until
 * everything is gone.
 */
export async function removeRemoteActor(actor: Account): Promise<'more' | 'done'> {
  await suspendAccount(actor, 'remote');
  if (actor.publicKeyPem !== null) await updateRemoteAccount(actor.id, { publicKeyPem: null, publicKeyId: null });
  const started = Date.now();
  let count = 0;
  for (;;) {
    const page = await accountStatusesPage(actor.id, { limit: Math.min(STATUS_PAGE, remoteRemovalLimits.statusesPerRun) }, {});
    if (page.length === 0) break;
    let gone = 0;
    for (const status of page) if (await removedUnlessGone(() => deleteStatus(actor, status))) gone++;
    if (gone === 0) {
      // Nothing on this page would go (changed under each deletion): leave them rather than loop on them.
      log.warn('moderation: statuses of a removed remote actor left behind', { accountId: actor.id, left: page.length });
      break;
    }
    count += page.length;
    if (count >= remoteRemovalLimits.statusesPerRun || Date.now() - started > remoteRemovalLimits.budgetMs) {
      log.info('moderation: remote actor removal continues in another run', { accountId: actor.id, removed: count });
      return 'more';
    }
  }
  if (!(await dropFollowsOf(actor, remoteRemovalLimits.followsPerRun))) return 'more';
  await deleteRemoteAccount(actor);
  log.info('moderation: remote account removed', { accountId: actor.id, uri: actor.uri });
  return 'done';
}
