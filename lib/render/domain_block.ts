// The DomainBlock entity of GET /api/v1/instance/domain_blocks
// (https://docs.joinmastodon.org/entities/DomainBlock/): the domain, its SHA-256
// (so a domain can be checked against the list without reading it), the
// severity and the operator's public comment (null when there is none).
import { createHash } from 'node:crypto';
import type { InstanceDomainBlock } from '../db/instance_domain_blocks';

export type DomainBlockEntity = { domain: string; digest: string; severity: 'silence' | 'suspend'; comment: string | null };

export const renderDomainBlock = (block: InstanceDomainBlock): DomainBlockEntity => ({
  domain: block.domain,
  digest: createHash('sha256').update(block.domain, 'utf8').digest('hex'),
  severity: block.severity,
  comment: block.publicComment === '' ? null : block.publicComment,
});
