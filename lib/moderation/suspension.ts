// Suspending an account and lifting a suspension. The flag is the sanction (lib/policy/sanctions.ts reads it on
// every path); what a suspension does besides (tokens, streams, follows, other servers, the purge after
// SUSPENSION_RETENTION_DAYS) is started here.
import { updateAccount, type Account } from '../db/accounts';
import { nowIso } from '../db/table';

/** How long a suspended account's data is kept so that unsuspending restores it (Mastodon: 30 days). */
export const SUSPENSION_RETENTION_DAYS = 30;

/** Suspends `target` (idempotent: a suspension already in force keeps its start). */
export async function suspendAccount(target: Account, origin: 'local' | 'remote' = 'local'): Promise<Account> {
  if (target.suspendedAt) return target;
  return (await updateAccount(target.id, { suspendedAt: nowIso(), suspensionOrigin: origin })) ?? target;
}

/** Lifts a suspension (idempotent). */
export async function unsuspendAccount(target: Account): Promise<Account> {
  if (!target.suspendedAt) return target;
  return (await updateAccount(target.id, { suspendedAt: null, suspensionOrigin: null })) ?? target;
}
