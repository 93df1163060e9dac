// The DomainBlock entity of GET /api/v1/instance/domain_blocks
// (https://docs.joinmastodon.org/entities/DomainBlock/): the domain (partly
// starred out when the block says `obfuscate`, as Mastodon's public_domain
// does), its SHA-256 (so a domain can be checked against the list without
// reading it), the severity and the operator's public comment (null when there
// is none). Blocks that limit nothing (noop: media or reports only) are not
// listed, as Mastodon lists only those with user-facing limitations.
import { createHash } from 'node:crypto';
import type { InstanceDomainBlock } from '../db/instance_domain_blocks';

export type DomainBlockEntity = { domain: string; digest: string; severity: 'silence' | 'suspend'; comment: string | null };

/** Mastodon's obfuscation: the middle half of the name starred out, dots kept. */
export function obfuscatedDomain(domain: string): string {
  const chars = [...domain];
  const visible = Math.floor(chars.length / 4);
  return chars.map((c, i) => (i > visible && i < chars.length - visible && c !== '.' ? '*' : c)).join('');
}

export const isListedPublicly = (block: InstanceDomainBlock): block is InstanceDomainBlock & { severity: 'silence' | 'suspend' } => block.severity !== 'noop';

export const renderDomainBlock = (block: InstanceDomainBlock & { severity: 'silence' | 'suspend' }): DomainBlockEntity => ({
  domain: block.obfuscate ? obfuscatedDomain(block.domain) : block.domain,
  digest: createHash('sha256').update(block.domain, 'utf8').digest('hex'),
  severity: block.severity,
  comment: block.publicComment === '' ? null : block.publicComment,
});
