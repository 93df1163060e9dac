// What the operator's domain blocks (lib/db/instance_domain_blocks.ts) mean for
// a given server: suspended (nothing in, nothing out, nothing kept) or
// silenced (its statuses stay out of the public timelines, its mentions reach
// only its followers), and, whatever the severity (noop too), whether its files
// are copied (reject_media) and its reports received (reject_reports). A block
// covers the domain's subdomains too, as Mastodon's DomainBlock.rule_for reads
// it. Every inbox request, delivery and fetch asks, so the list is read whole
// and kept for a short while per process: a new block takes effect everywhere
// within BLOCKS_TTL_MS.
//
// In limited federation mode (the `limitedFederation` setting, Mastodon's
// LIMITED_FEDERATION_MODE) only the domains the operator allowed
// (lib/db/domain_allows.ts, exact domains as Mastodon's DomainAllow.rule_for)
// federate: `federationRefusal` says why a server is refused, for the inbox,
// delivery and fetch (lib/federation/domain_gate.ts, deliver.ts, fetch.ts).
import type { Account } from '../db/accounts';
import { accountsByIds } from '../db/accounts';
import { config } from '../config';
import { allDomainAllows } from '../db/domain_allows';
import { recentInstanceSettings } from '../db/instance';
import { allInstanceDomainBlocks, type DomainBlockSeverity, type InstanceDomainBlock } from '../db/instance_domain_blocks';
import type { Status } from '../db/statuses';
import { memo } from '../memo';

export const BLOCKS_TTL_MS = 10_000;

// A memo (lib/memo.ts) like the container's other shared reads, so that forgetAllMemos() reaches it too.
const recentBlocks = memo(async () => new Map((await allInstanceDomainBlocks()).map((b) => [b.domain, b])), { ttlMs: BLOCKS_TTL_MS });

/** Forgets the cached list (the admin command that changed it, tests). */
export const forgetInstanceDomainBlocks = (): void => recentBlocks.forget();

const blocksByDomain = (): Promise<Map<string, InstanceDomainBlock>> => recentBlocks.get();

/** The names a block of which covers `domain` (host[:port]): itself, without its port, and each parent domain. */
export function coveringDomains(domain: string): string[] {
  const host = domain.trim().toLowerCase().replace(/\.$/, '');
  const hostname = host.replace(/:\d+$/, '');
  const labels = hostname.split('.');
  const parents = labels.map((_, i) => labels.slice(i).join('.'));
  return [...new Set([host, ...parents])].filter((d) => d !== '');
}

const STRENGTH: Record<DomainBlockSeverity, number> = { noop: 0, silence: 1, suspend: 2 };

/** The blocks covering `domain` (itself and its parents). */
async function coveringBlocks(domain: string | null | undefined): Promise<InstanceDomainBlock[]> {
  if (!domain) return [];
  const blocks = await blocksByDomain();
  if (blocks.size === 0) return [];
  return coveringDomains(domain).flatMap((name) => blocks.get(name) ?? []);
}

/** The strongest block covering `domain`, if any. */
export async function domainBlockFor(domain: string | null | undefined): Promise<InstanceDomainBlock | undefined> {
  let strongest: InstanceDomainBlock | undefined;
  for (const block of await coveringBlocks(domain)) {
    if (!strongest || STRENGTH[block.severity] > STRENGTH[strongest.severity]) strongest = block;
  }
  return strongest;
}

/** The severity that limits the domain (silence or suspend); undefined when none does (a noop block limits nothing). */
export const severityOf = async (domain: string | null | undefined): Promise<Exclude<DomainBlockSeverity, 'noop'> | undefined> => {
  const severity = (await domainBlockFor(domain))?.severity;
  return severity === 'noop' ? undefined : severity;
};

/** Are the domain's files left uncopied (a block with reject_media, or a suspension, covers it)? */
export const rejectsMedia = async (domain: string | null | undefined): Promise<boolean> =>
  (await coveringBlocks(domain)).some((b) => b.rejectMedia || b.severity === 'suspend');

/** Does any block reject media (so that a file's owner is worth reading before it is copied)? */
export const anyMediaRejected = async (): Promise<boolean> => [...(await blocksByDomain()).values()].some((b) => b.rejectMedia || b.severity === 'suspend');

/** Are reports (Flags) from the domain dropped (a block with reject_reports, or a suspension, covers it)? */
export const rejectsReports = async (domain: string | null | undefined): Promise<boolean> =>
  (await coveringBlocks(domain)).some((b) => b.rejectReports || b.severity === 'suspend');

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

// ---- limited federation ----

const recentAllows = memo(async () => new Set((await allDomainAllows()).map((a) => a.domain)));

/** Forgets the kept allow list (after the admin API changed it, in this container; tests). */
export const forgetDomainAllows = (): void => recentAllows.forget();

/** Is the server of `domain` (host[:port]) one we federate with in limited federation mode: ours, or allowed by name? */
async function allowedInLimitedMode(domain: string): Promise<boolean> {
  const host = domain.trim().toLowerCase().replace(/\.$/, '');
  const ours = config.domain.toLowerCase();
  if (host === ours || host.replace(/:\d+$/, '') === ours.replace(/:\d+$/, '')) return true;
  const allows = await recentAllows.get();
  return allows.has(host) || allows.has(host.replace(/:\d+$/, ''));
}

export type FederationRefusal = 'suspended' | 'not-allowed';

/**
 * Why nothing is received from, sent to or fetched from the server of `domain`: the operator suspended it, or
 * limited federation mode is on and it is not allowed. Undefined when it federates.
 */
export async function federationRefusal(domain: string | null | undefined): Promise<FederationRefusal | undefined> {
  if (!domain) return undefined;
  if (await isSuspendedDomain(domain)) return 'suspended';
  if ((await recentInstanceSettings()).limitedFederation && !(await allowedInLimitedMode(domain))) return 'not-allowed';
  return undefined;
}

const hostOfUrl = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/** `federationRefusal` of a URL's server; an unparsable URL is nobody's server (other checks refuse it). */
export const federationRefusalOfUrl = async (url: string): Promise<FederationRefusal | undefined> => federationRefusal(hostOfUrl(url));

/** Of `domains` (host[:port]), those we do not federate with (suspended, or not allowed in limited federation mode). */
export async function refusedAmong(domains: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const domain of new Set(domains)) if (await federationRefusal(domain)) out.add(domain);
  return out;
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
