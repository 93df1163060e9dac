// What the instance tells anyone about its federation: the servers it knows
// (GET /api/v1/instance/peers, suspended ones left out) and, when the operator
// makes them public, the domains it blocks (GET /api/v1/instance/domain_blocks).
import { recentInstanceSettings } from '../db/instance';
import { allInstanceDomainBlocks, allPeers, type InstanceDomainBlock } from '../db/instance_domain_blocks';
import { notFound } from '../errors';
import { isSuspendedDomain } from '../policy/instance_domains';

/** The known domains, suspended ones left out, in domain order. */
export async function knownPeers(): Promise<string[]> {
  const peers = await allPeers();
  const out: string[] = [];
  for (const peer of peers) if (!(await isSuspendedDomain(peer))) out.push(peer);
  return out;
}

/** The operator's domain blocks, by domain; "Record not found" unless the operator made them public. */
export async function publicDomainBlocks(): Promise<InstanceDomainBlock[]> {
  if (!(await recentInstanceSettings()).domainBlocksPublic) throw notFound();
  return allInstanceDomainBlocks();
}
