// The audit log (Mastodon's Admin::ActionLog): every moderator action, who took it, what it was, on which
// target and when. Written after the action itself, one item per action, in one partition read newest first
// by id range (the moderation pages, `npm run admin -- audit`). An entry is never changed or deleted.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { putItem } from './table';

export const auditEntryItem = z.object({
  id: z.string(),
  /** The moderator's account. */
  accountId: z.string(),
  /** Mastodon's action names: suspend, unsuspend, silence, unsilence, sensitive, unsensitive, disable, enable, warn, approve, reject, destroy, resolve, reopen, assigned_to_self, unassigned, create, update, change_role, ... */
  action: z.string(),
  /** Mastodon's target types: Account, Report, DomainBlock, DomainAllow, EmailDomainBlock, IpBlock, CanonicalEmailBlock, Status, Tag, PreviewCardProvider, ... */
  targetType: z.string(),
  targetId: z.string(),
  /** What a person reads for the target (an acct, a domain, an address range), kept as it was when the action was taken. */
  humanIdentifier: z.string().default(''),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntryItem>;

export const putAuditEntry = (entry: AuditEntry): Promise<boolean> => putItem({ ...keys.auditLogEntry(entry.id), ...auditEntryItem.parse(entry) });

/** The audit log, newest first. */
export const auditLogPage = (page: Page): Promise<AuditEntry[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.auditLogPartition() }, page, auditEntryItem);
