// What the operator's domain blocks (lib/db/instance_domain_blocks.ts) mean for
// a given server: suspended (nothing in, nothing out, nothing kept) or
// silenced (its statuses stay out of the public timelines, its mentions reach
// only its followers). A block covers the domain's subdomains too, as
// Mastodon's DomainBlock.rule_for reads it. Every inbox request, delivery and
// fetch asks, so the list is read whole and kept for a short while per process:
// a new block takes effect everywhere within BLOCKS_TTL_MS.
import type { Account } from '../db/accounts';
import { accountsByIds } from '../db/accounts';
import { allInstanceDomainBlocks, type DomainBlockSeverity, type InstanceDomainBlock } from '../db/instance_domain_blocks';
import type { Status } from '../db/statuses';

export const BLOCKS_TTL_MS = 10_000;

let cached: { at: number; byDomain: Map<string, InstanceDomainBlock> } | undefined;

/** Forgets the cached list (the admin command that changed it, tests). */
export const forgetInstanceDomainBlocks = (): void => {
  cached = undefined;
};

async function blocksByDomain(): Promise<Map<string, InstanceDomainBlock>> {
  if (cached && Date.now() - cached.at < BLOCKS_TTL_MS) return cached.byDomain;
  const blocks = await allInstanceDomainBlocks();
  cached = { at: Date.now(), byDomain: new Map(blocks.map((b) => [b.domain, b])) };
  return cached.byDomain;
}

/** The names a block of which covers `domain` (host[:port]): itself, without its port, and each parent domain. */
export function coveringDomains(domain: string): string[] {
  const host = domain.trim().toLowerCase().replace(/\.$/, '');
  const hostname = host.replace(/:\d+$/, '');
  const labels = hostname.split('.');
  const parents = labels.map((_, i) => labels.slice(i).join('.'));
  return [...new Set([host, ...parents])].filter((d) => d !== '');
}

const STRENGTH: Record<DomainBlockSeverity, number> = { silence: 1, suspend: 2 };

/** The strongest block covering `domain`, if any. */
export async function domainBlockFor(domain: string | null | undefined): Promise<InstanceDomainBlock | undefined> {
  if (!domain) return undefined;
  const blocks = await blocksByDomain();
  if (blocks.size === 0) return undefined;
  let strongest: InstanceDomainBlock | undefined;
  for (const name of coveringDomains(domain)) {
    const block = blocks.get(name);
    if (block && (!strongest || STRENGTH[block.severity] > STRENGTH[strongest.severity])) strongest = block;
  }
  return strongest;
}

export const severityOf = async (domain: string | null | undefined): Promise<DomainBlockSeverity | undefined> => (await domainBlockFor(domain))?.severity;

/** Is the server suspended: no request of it is read, nothing is sent to it or fetched from it? */
export const isSuspendedDomain = async (domain: string | null | undefined): Promise<boolean> => (await severityOf(domain)) === 'suspend';

/** Is the server of this URL suspended? An unparsable URL is nobody's server: not suspended (other checks refuse it). */
export async function isSuspendedUrl(url: string): Promise<boolean> {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return false;
  }
  return isSuspendedDomain(host);
}

/** Is an account silenced by its domain (a remote account on a silenced, or suspended, server)? */
export const isSilencedAccount = async (account: Pick<Account, 'domain'>): Promise<boolean> => (await severityOf(account.domain)) !== undefined;

/**
 * The public-timeline statuses minus those of accounts on silenced (or suspended) servers, in input order.
 * Nothing is read when no domain is blocked; else one batch read of the remote authors.
 */
export async function withoutSilencedDomains(statuses: Status[]): Promise<Status[]> {
  const blocks = await blocksByDomain();
  const remote = statuses.filter((s) => s.uri);
  if (blocks.size === 0 || remote.length === 0) return statuses;
  const authors = await accountsByIds([...new Set(remote.map((s) => s.accountId))]);
  const silenced = new Set<string>();
  for (const author of authors.values()) if (await isSilencedAccount(author)) silenced.add(author.id);
  return statuses.filter((s) => !silenced.has(s.accountId));
}

/** Of `domains` (host[:port]), those suspended. */
export async function suspendedAmong(domains: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const domain of new Set(domains)) if (await isSuspendedDomain(domain)) out.add(domain);
  return out;
}
