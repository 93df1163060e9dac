// Suspending an account and lifting a suspension. The flag is the sanction (lib/policy/sanctions.ts reads it on
// every path); what a suspension does besides (tokens, streams, follows, other servers, the purge after
// SUSPENSION_RETENTION_DAYS) is started here.
import { updateAccount, type Account } from '../db/accounts';
import { nowIso } from '../db/table';
import { tokensOfAccount } from '../db/tokens';
import { endStreamsOfTokens } from '../streaming/withdraw';

/** How long a suspended account's data is kept so that unsuspending restores it (Mastodon: 30 days). */
export const SUSPENSION_RETENTION_DAYS = 30;

/** Suspends `target` (idempotent: a suspension already in force keeps its start). */
export async function suspendAccount(target: Account, origin: 'local' | 'remote' = 'local'): Promise<Account> {
  const after = target.suspendedAt ? target : (await updateAccount(target.id, { suspendedAt: nowIso(), suspensionOrigin: origin })) ?? target;
  // Its tokens answer 403 from the flag on (lib/http/auth.ts); its open streams end now (again if a run stopped before).
  if (target.domain === null) await endStreamsOfTokens((await tokensOfAccount(target.id)).map((t) => t.id));
  return after;
}

/** Lifts a suspension (idempotent). */
export async function unsuspendAccount(target: Account): Promise<Account> {
  if (!target.suspendedAt) return target;
  return (await updateAccount(target.id, { suspendedAt: null, suspensionOrigin: null })) ?? target;
}
