// Recording a moderator's action in the audit log (lib/db/audit_log.ts): every action of lib/moderation and of
// the admin API calls this once the action has taken effect.
import type { Account } from '../db/accounts';
import { putAuditEntry, type AuditEntry } from '../db/audit_log';
import { nowIso } from '../db/table';
import { newId } from '../ids';

export type AuditTarget = { type: string; id: string; human: string };

export async function recordAction(moderator: Pick<Account, 'id'>, action: string, target: AuditTarget): Promise<AuditEntry> {
  const entry: AuditEntry = {
    id: newId(),
    accountId: moderator.id,
    action,
    targetType: target.type,
    targetId: target.id,
    humanIdentifier: target.human,
    createdAt: nowIso(),
  };
  await putAuditEntry(entry);
  return entry;
}

/** An account as an audit target: its acct, as Mastodon's log shows it. */
export const accountTarget = (account: Pick<Account, 'id' | 'username' | 'domain'>): AuditTarget => ({
  type: 'Account',
  id: account.id,
  human: account.domain ? `${account.username}@${account.domain}` : account.username,
});
