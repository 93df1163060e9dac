// A moderator's action on one account (Mastodon's Admin::AccountAction and the reversing endpoints): the
// sanction flag, its side effects (lib/moderation/suspension.ts), and the audit log. Who may act on whom is
// lib/policy/roles.ts: never on oneself, never on an account whose role is not below one's own.
import { updateAccount, type Account } from '../db/accounts';
import { nowIso } from '../db/table';
import { tokensOfAccount } from '../db/tokens';
import { endStreamsOfTokens } from '../streaming/withdraw';
import { forbidden, notFound } from '../errors';
import { reportById } from '../db/reports';
import { warningPresetById } from '../db/warning_presets';
import { resolveReportAs } from './reports';
import { recordStrike } from './strikes';
import { can, outranks, type Permission } from '../policy/roles';
import { accountTarget, recordAction } from './audit';
import { suspendAccount, unsuspendAccount } from './suspension';
import { warningText } from './warning_presets';

export const ACCOUNT_ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;
export type AccountActionType = (typeof ACCOUNT_ACTIONS)[number];
export const REVERSALS = ['enable', 'unsilence', 'unsuspend', 'unsensitive'] as const;
export type Reversal = (typeof REVERSALS)[number];

export type AccountActionInput = {
  type: AccountActionType;
  reportId?: string;
  warningPresetId?: string;
  text?: string;
  sendEmailNotification?: boolean;
};

/** 403 unless `moderator` holds `permission` and outranks `target` (which is not itself). */
export function assertMayActOn(moderator: Account, target: Account, permission: Permission = 'manage_users'): void {
  if (!can(moderator, permission) || !outranks(moderator, target)) throw forbidden();
}

/** `disable` concerns a login: only a local account has one (Mastodon answers 403 for a remote one). */
const needsLogin = (type: AccountActionType | Reversal) => type === 'disable' || type === 'enable';

/** Takes the action on `target` and records it; answers the account as it is afterwards. */
export async function takeAccountAction(moderator: Account, target: Account, input: AccountActionInput): Promise<Account> {
  assertMayActOn(moderator, target);
  if (needsLogin(input.type) && target.domain !== null) throw forbidden();
  // As Mastodon's find: an unknown report or warning preset is 404, before anything is done.
  const report = input.reportId ? await reportById(input.reportId, true) : undefined;
  if (input.reportId && !report) throw notFound();
  const preset = input.warningPresetId ? await warningPresetById(input.warningPresetId) : undefined;
  if (input.warningPresetId && !preset) throw notFound();
  let after = target;
  switch (input.type) {
    case 'none':
      break;
    case 'sensitive':
      after = target.sensitizedAt ? target : (await updateAccount(target.id, { sensitizedAt: nowIso() })) ?? target;
      break;
    case 'disable':
      after = target.disabled ? target : (await updateAccount(target.id, { disabled: true })) ?? target;
      // Its tokens answer 403 from now on; its open streams end now (even if disabled before: a run may have stopped).
      await endStreamsOfTokens((await tokensOfAccount(target.id)).map((t) => t.id));
      break;
    case 'silence':
      after = target.silencedAt ? target : (await updateAccount(target.id, { silencedAt: nowIso() })) ?? target;
      break;
    case 'suspend':
      after = await suspendAccount(target, 'local');
      break;
  }
  await recordAction(moderator, input.type === 'none' ? 'warn' : input.type, accountTarget(target));
  // Every action leaves a strike (Admin::AccountAction#process_strike!), the report's statuses named in it; the
  // report is resolved; the account is told when the moderator asks (lib/moderation/strikes.ts).
  await recordStrike(moderator, after, {
    action: input.type,
    text: warningText(preset?.text, input.text),
    reportId: report?.id ?? null,
    statusIds: report?.statusIds ?? [],
    notify: input.sendEmailNotification === true,
  });
  // Resolved by this moderator, with its audit entry (nothing when it was resolved already).
  if (report) await resolveReportAs(moderator, report.id);
  return after;
}

/** Lifts one sanction (idempotent); answers the account as it is afterwards. */
export async function reverseAccountAction(moderator: Account, target: Account, reversal: Reversal): Promise<Account> {
  assertMayActOn(moderator, target);
  if (needsLogin(reversal) && target.domain !== null) throw forbidden();
  let after = target;
  switch (reversal) {
    case 'enable':
      after = target.disabled ? (await updateAccount(target.id, { disabled: false })) ?? target : target;
      break;
    case 'unsilence':
      after = target.silencedAt ? (await updateAccount(target.id, { silencedAt: null })) ?? target : target;
      break;
    case 'unsuspend':
      after = await unsuspendAccount(target);
      break;
    case 'unsensitive':
      after = target.sensitizedAt ? (await updateAccount(target.id, { sensitizedAt: null })) ?? target : target;
      break;
  }
  await recordAction(moderator, reversal, accountTarget(target));
  return after;
}
