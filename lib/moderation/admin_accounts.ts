// The admin API's account operations other than the sanctions (./actions.ts): finding the account, approving
// and rejecting a sign-up, and asking for a suspended account's data to be deleted. The checks are Mastodon's
// UserPolicy and AccountPolicy: approve/reject only a local pending account (else 403), delete only a
// suspended one and only with delete_user_data.
import { accountById, approveAccount, deletePendingAccount, updateAccount, type Account } from '../db/accounts';
import { countOnInstance } from '../db/stats';
import { nowIso } from '../db/table';
import { revokeToken, tokensOfAccount } from '../db/tokens';
import { forbidden, notFound } from '../errors';
import { can } from '../policy/roles';
import { assertMayActOn, reverseAccountAction, type Reversal } from './actions';
import { endStreamsOfTokens } from '../streaming/withdraw';
import { purgeSuspendedNow } from './suspension';
import { accountTarget, recordAction } from './audit';

/** The account of the path's id, or 404. */
export async function adminAccount(id: string): Promise<Account> {
  const account = /^\d{1,20}$/.test(id) ? await accountById(id) : undefined;
  if (!account) throw notFound();
  return account;
}

const assertPendingLocal = (moderator: Account, target: Account) => {
  if (!can(moderator, 'manage_users') || target.domain !== null || target.approved) throw forbidden();
};

export async function approveSignUp(moderator: Account, target: Account): Promise<Account> {
  assertPendingLocal(moderator, target);
  const after = (await approveAccount(target.id)) ?? target;
  await recordAction(moderator, 'approve', accountTarget(target));
  return after;
}

/** Rejects a sign-up: the account is deleted, its username and e-mail free again (as Mastodon's reject). */
export async function rejectSignUp(moderator: Account, target: Account): Promise<Account> {
  assertPendingLocal(moderator, target);
  // A pending account may have signed in (its tokens answer 403 until approved): they go first, with their streams.
  const tokens = await tokensOfAccount(target.id);
  for (const token of tokens) await revokeToken(token, token.clientId);
  await endStreamsOfTokens(tokens.map((t) => t.id));
  if (await deletePendingAccount(target)) await countOnInstance('userCount', -1);
  await recordAction(moderator, 'reject', accountTarget(target));
  return target;
}

/**
 * Asks for a suspended account's data to be deleted (Mastodon's Admin::AccountDeletionWorker): recorded on the
 * account, and the suspension's purge brought forward to now (lib/moderation/suspension.ts). Idempotent.
 */
export async function requestDeletion(moderator: Account, target: Account): Promise<Account> {
  if (!can(moderator, 'delete_user_data') || target.suspendedAt === null) throw forbidden();
  assertMayActOn(moderator, target, 'delete_user_data');
  const after = target.purgeRequestedAt ? target : (await updateAccount(target.id, { purgeRequestedAt: nowIso() })) ?? target;
  // The suspension's purge, due 30 days after it began, is brought forward: the sweeper's next run starts it.
  await purgeSuspendedNow(after);
  await recordAction(moderator, 'destroy', accountTarget(target));
  return after;
}

/** Lifts a sanction; a suspension made by the account's own server is not ours to lift (AccountPolicy#unsuspend?). */
export async function liftSanction(moderator: Account, target: Account, reversal: Reversal): Promise<Account> {
  if (reversal === 'unsuspend' && target.suspensionOrigin === 'remote') throw forbidden();
  // Its data is being deleted (DELETE /api/v1/admin/accounts/:id): there is nothing to restore.
  if (reversal === 'unsuspend' && target.purgeRequestedAt) throw forbidden();
  return reverseAccountAction(moderator, target, reversal);
}
