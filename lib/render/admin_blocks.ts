// The admin API's block and allow entities (https://docs.joinmastodon.org/entities/Admin_DomainBlock/,
// Admin_DomainAllow, Admin_EmailDomainBlock, Admin_IpBlock, Admin_CanonicalEmailBlock), from their stored records.
import type { DomainAllow } from '../db/domain_allows';
import type { InstanceDomainBlock } from '../db/instance_domain_blocks';
import type { CanonicalEmailBlock, EmailDomainBlock, EmailDomainBlockDay, IpBlock } from '../db/sign_up_blocks';

const orNull = (text: string) => (text === '' ? null : text);

export const renderAdminDomainBlock = (b: InstanceDomainBlock) => ({
  id: b.id,
  domain: b.domain,
  created_at: b.createdAt,
  severity: b.severity,
  reject_media: b.rejectMedia,
  reject_reports: b.rejectReports,
  private_comment: orNull(b.privateComment),
  public_comment: orNull(b.publicComment),
  obfuscate: b.obfuscate,
});

export const renderAdminDomainAllow = (a: DomainAllow) => ({ id: a.id, domain: a.domain, created_at: a.createdAt });

/** `history`: the last seven days, newest first, day as the UNIX time of its midnight (strings, as Mastodon's). */
export const renderAdminEmailDomainBlock = (b: EmailDomainBlock, days: EmailDomainBlockDay[]) => ({
  id: b.id,
  domain: b.domain,
  allow_with_approval: b.allowWithApproval,
  created_at: b.createdAt,
  history: days.map((d) => ({ day: String(Date.parse(`${d.day}T00:00:00Z`) / 1000), accounts: String(d.accounts), uses: String(d.uses) })),
});

export const renderAdminIpBlock = (b: IpBlock) => ({
  id: b.id,
  ip: b.cidr,
  severity: b.severity,
  comment: b.comment,
  created_at: b.createdAt,
  expires_at: b.expiresAt,
});

export const renderAdminCanonicalEmailBlock = (b: CanonicalEmailBlock) => ({ id: b.id, canonical_email_hash: b.canonicalEmailHash });
