// Moderators' decisions on appeals (Mastodon's AppealService / Admin::DisputesController): approving undoes the
// strike's action and marks the strike overruled; rejecting keeps it. Both need manage_appeals and are logged.
import { accountById, type Account } from '../db/accounts';
import { decideAppeal, pendingAppealsPage, pendingAppealStrikes, strikeById, type Strike } from '../db/strikes';
import { nowIso } from '../db/table';
import { forbidden, notFound, unprocessable } from '../errors';
import { can } from '../policy/roles';
import { reverseAccountAction, type Reversal } from './actions';
import { recordAction } from './audit';

/** What undoes each strike action (none: nothing to undo). */
const UNDO: Partial<Record<Strike['action'], Reversal>> = {
  disable: 'enable',
  sensitive: 'unsensitive',
  silence: 'unsilence',
  suspend: 'unsuspend',
};

/** The strikes with an appeal waiting, oldest appeal first. */
export async function pendingAppeals(moderator: Account, limit = 100): Promise<Strike[]> {
  if (!can(moderator, 'manage_appeals')) throw forbidden();
  return pendingAppealStrikes(limit);
}

/** A page of the strikes with an appeal waiting, oldest appeal first, after the appeal `after` (the appeals page). */
export async function pendingAppealsAfter(moderator: Account, limit: number, after?: string): Promise<{ strikes: Strike[]; last?: string }> {
  if (!can(moderator, 'manage_appeals')) throw forbidden();
  return pendingAppealsPage(limit, after);
}

async function pendingStrike(moderator: Account, strikeId: string): Promise<{ strike: Strike; target: Account }> {
  if (!can(moderator, 'manage_appeals')) throw forbidden();
  const strike = /^\d{1,30}$/.test(strikeId) ? await strikeById(strikeId) : undefined;
  const target = strike ? await accountById(strike.accountId) : undefined;
  if (!strike || !strike.appeal || !target) throw notFound();
  if (strike.appeal.state !== 'pending') throw unprocessable('Validation failed: Appeal has already been decided');
  return { strike, target };
}

/** Approves the appeal: the strike's action is undone (as the moderator, under the outrank rule), the strike overruled. */
export async function approveAppeal(moderator: Account, strikeId: string): Promise<Strike> {
  const { strike, target } = await pendingStrike(moderator, strikeId);
  const undo = UNDO[strike.action];
  if (undo) await reverseAccountAction(moderator, target, undo);
  const decided = await decideAppeal(strike, 'approved', moderator.id, nowIso());
  if (!decided) throw unprocessable('Validation failed: Appeal has already been decided');
  await recordAction(moderator, 'approve_appeal', { type: 'Appeal', id: strike.appeal!.id, human: target.username });
  return decided;
}

export async function rejectAppeal(moderator: Account, strikeId: string): Promise<Strike> {
  const { strike, target } = await pendingStrike(moderator, strikeId);
  const decided = await decideAppeal(strike, 'rejected', moderator.id, nowIso());
  if (!decided) throw unprocessable('Validation failed: Appeal has already been decided');
  await recordAction(moderator, 'reject_appeal', { type: 'Appeal', id: strike.appeal!.id, human: target.username });
  return decided;
}
