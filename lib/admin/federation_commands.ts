// The operator's federation commands (in the spirit of `tootctl domains` and
// Mastodon's admin domain blocks): block a remote domain (silence or suspend),
// unblock it, list the blocks; see which servers keep failing deliveries and the
// deliveries given up on (the deliver queue's dead letters), send those again,
// refetch a remote account. Each answers the text to print, or throws AdminError.
//
// Suspending removes everything stored from the domain (its accounts with their
// statuses and follows both ways) through the same bounded removal as a Delete
// of an actor (lib/inbox/delete.ts): `purgeDomain` does at most a run's worth of
// it and says whether more remains; the command loops until it is done, and
// running `domains block` again resumes an interrupted purge.
import {
  allInstanceDomainBlocks,
  allPeers,
  deleteInstanceDomainBlock,
  instanceDomainBlockOf,
  putInstanceDomainBlock,
  type DomainBlockSeverity,
  type InstanceDomainBlock,
} from '../db/instance_domain_blocks';
import { remoteAccountByAcct } from '../db/remote';
import { serverHealthAmong } from '../db/server_health';
import { isLocalDomain, resolveAcct, saveActorDocument } from '../federation/actors';
import { FetchFailed, fetchObject } from '../federation/fetch';
import { normalizeDomain } from '../federation/webfinger';
import { newId } from '../ids';
import { purgeCovered } from '../moderation/domain_blocks';

/** Kept here for the CLI's callers and tests: the purge itself lives with the admin API's (lib/moderation/domain_blocks.ts). */
export { purgeDomain } from '../moderation/domain_blocks';
import { BLOCKS_TTL_MS, forgetInstanceDomainBlocks } from '../policy/instance_domains';
import { AdminError } from './commands';
import { deadLetters, retryDeadLetters } from './dead_letters';

/** Mastodon's limit on a domain block's comments. */
export const COMMENT_MAX = 1000;

/** A domain as blocks store it: lower-case host (punycode), no trailing dot; AdminError when it is not one. */
export function blockableDomainName(input: string): string {
  const trimmed = input.trim().replace(/\.$/, '');
  const host = normalizeDomain(trimmed);
  if (!host) throw new AdminError(`Not a domain: ${JSON.stringify(input)}`);
  if (isLocalDomain(host)) throw new AdminError(`${host} is this instance's own domain`);
  return host;
}

function comment(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if ([...text].length > COMMENT_MAX) throw new AdminError(`${what} is too long (maximum is ${COMMENT_MAX} characters)`);
  return text;
}

export type BlockOptions = {
  severity?: string;
  publicComment?: string;
  privateComment?: string;
  /**
   * Purge a second time once every function has read the new block (BLOCKS_TTL_MS): an inbox worker still holding
   * the old list may store an account of the domain meanwhile. The command line does; tests that need not wait don't.
   */
  settle?: boolean;
};

/** How long the second pass of a suspension waits (tests shorten it). */
export const suspensionSettle = { ms: BLOCKS_TTL_MS + 1_000 };

/** Purges every known domain the block covers, to the end (the CLI has no time limit). */
async function purgeAll(domain: string): Promise<number> {
  return (await purgeCovered(domain)).accounts;
}

/**
 * What the command line blocks with. `noop` (a block only to reject media or reports) is the admin API's: the
 * command has no flags for those, so a noop block made here would do nothing.
 */
const CLI_SEVERITIES: readonly DomainBlockSeverity[] = ['silence', 'suspend'];

function severityOption(value: string | undefined, current: DomainBlockSeverity | undefined): DomainBlockSeverity {
  if (value === undefined) return current ?? 'suspend';
  const severity = CLI_SEVERITIES.find((s) => s === value.trim().toLowerCase());
  if (!severity) throw new AdminError(`--severity must be one of ${CLI_SEVERITIES.join(', ')}, not ${JSON.stringify(value)}`);
  return severity;
}

/** Blocks (or changes the block of) a domain; a suspension removes what is stored from it. */
export async function blockDomainCommand(input: string, opts: BlockOptions = {}): Promise<string> {
  const domain = blockableDomainName(input);
  const existing = await instanceDomainBlockOf(domain);
  const severity = severityOption(opts.severity, existing?.severity);
  const now = new Date().toISOString();
  const block: InstanceDomainBlock = {
    id: existing?.id ?? newId(),
    domain,
    severity,
    rejectMedia: existing?.rejectMedia ?? false,
    rejectReports: existing?.rejectReports ?? false,
    obfuscate: existing?.obfuscate ?? false,
    // The command purges to the end itself: the sweeper has nothing left to do.
    purgePending: false,
    publicComment: comment(opts.publicComment, '--public-comment') ?? existing?.publicComment ?? '',
    privateComment: comment(opts.privateComment, '--private-comment') ?? existing?.privateComment ?? '',
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await putInstanceDomainBlock(block);
  forgetInstanceDomainBlocks();
  const verb = existing ? (existing.severity === severity ? 'Updated the block of' : `Changed the block of ${domain} to`) : 'Blocked';
  const lines = [existing && existing.severity !== severity ? `${verb} ${severity}.` : `${verb} ${domain} (${severity}).`];
  if (severity === 'suspend') {
    let removed = await purgeAll(domain);
    if (opts.settle) {
      await new Promise((resolve) => setTimeout(resolve, suspensionSettle.ms));
      removed += await purgeAll(domain);
    }
    lines.push(`Removed ${removed} account${removed === 1 ? '' : 's'} stored from ${domain} (with their statuses and follows).`);
  } else if (severity === 'silence') {
    lines.push(`Statuses from ${domain} stay out of the public timelines; its accounts' mentions notify only their followers.`);
  }
  return lines.join('\n');
}

export async function unblockDomainCommand(input: string): Promise<string> {
  const domain = blockableDomainName(input);
  const removed = await deleteInstanceDomainBlock(domain);
  if (!removed) throw new AdminError(`${domain} is not blocked`);
  forgetInstanceDomainBlocks();
  return `Unblocked ${domain} (was ${removed.severity}).`;
}

export async function listDomainBlocksCommand(): Promise<string> {
  const blocks = await allInstanceDomainBlocks();
  if (blocks.length === 0) return 'No domain is blocked.';
  return blocks
    .map((b) =>
      [
        `${b.domain}  ${b.severity}  since ${b.createdAt}`,
        ...(b.publicComment ? [`  public comment:  ${b.publicComment}`] : []),
        ...(b.privateComment ? [`  private comment: ${b.privateComment}`] : []),
      ].join('\n'),
    )
    .join('\n');
}

// ---- delivery health ----

/** The known servers that are failing deliveries now: consecutive failures, since when, and whether they are skipped. */
export async function failingServersCommand(now = new Date()): Promise<string> {
  const health = await serverHealthAmong(await allPeers());
  if (health.length === 0) return 'No server is failing deliveries.';
  return health
    .sort((a, b) => b.failures - a.failures)
    .map((h) => {
      const skipped = h.unavailableUntil !== null && Date.parse(h.unavailableUntil) > now.getTime();
      return `${h.domain}  ${h.failures} failure${h.failures === 1 ? '' : 's'} since ${h.firstFailureAt}, last ${h.lastFailureAt}${skipped ? `  unavailable until ${h.unavailableUntil}` : ''}`;
    })
    .join('\n');
}

export async function deadLettersCommand(): Promise<string> {
  const letters = await deadLetters();
  if (letters.length === 0) return 'The deliver dead-letter queue is empty.';
  return letters.map((l) => `${l.inbox}  ${l.activityType}  ${l.activityId}  attempts: ${l.attempts}`).join('\n');
}

export async function retryDeadLettersCommand(): Promise<string> {
  const moved = await retryDeadLetters();
  return `Moved ${moved} dead letter${moved === 1 ? '' : 's'} back to the deliver queue.`;
}

/** Fetches a remote account's actor document again and stores what it says now. */
export async function refetchAccountCommand(handle: string): Promise<string> {
  const [username, domain, ...extra] = handle.trim().replace(/^@/, '').split('@');
  const host = domain ? normalizeDomain(domain) : undefined;
  if (!username || !host || extra.length > 0) throw new AdminError(`Not a remote account handle (user@domain): ${JSON.stringify(handle)}`);
  const stored = await remoteAccountByAcct(username, host);
  try {
    if (!stored) {
      const found = await resolveAcct(username, host);
      if (!found || found.domain === null) throw new AdminError(`No account ${username}@${host}`);
      return `Fetched ${found.username}@${found.domain} (${found.uri}).`;
    }
    const doc = await fetchObject(stored.uri!);
    if (doc.id !== stored.uri) throw new AdminError(`${stored.uri} now serves another actor (${String(doc.id)})`);
    const saved = await saveActorDocument(doc, { fetchedFrom: stored.uri! });
    if (!saved) throw new AdminError(`${stored.uri} no longer serves a usable actor document`);
    return `Refetched ${saved.username}@${saved.domain} (${saved.uri}).`;
  } catch (err) {
    if (err instanceof FetchFailed) throw new AdminError(`Cannot fetch ${username}@${host}: ${err.reason}`);
    throw err;
  }
}
