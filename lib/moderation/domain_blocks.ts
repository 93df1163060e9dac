// The operator's domain blocks and allows as the admin API changes them (Mastodon's
// Api::V1::Admin::DomainBlocksController and DomainAllowsController with DomainBlockWorker), beside the CLI
// (lib/admin/federation_commands.ts), on the same store (lib/db/instance_domain_blocks.ts, lib/db/domain_allows.ts)
// and the same policy (lib/policy/instance_domains.ts). Every change is recorded in the audit log.
//
// A suspension removes what is stored from the domain (its accounts with their statuses and follows both ways)
// through the bounded removal of a Delete of an actor (lib/inbox/delete.ts). The CLI runs it to the end; a block
// made through the API is marked `purgePending` and the sweeper removes a run's worth each minute
// (`continueDomainPurges`), so no request waits for it. The block itself applies at once (within BLOCKS_TTL_MS
// in other containers).
import type { Account } from '../db/accounts';
import { accountById } from '../db/accounts';
import { createDomainAllow, deleteDomainAllow, domainAllowById, domainAllowOf, type DomainAllow } from '../db/domain_allows';
import {
  allInstanceDomainBlocks,
  allPeers,
  createInstanceDomainBlock,
  deleteDomainAccount,
  deleteInstanceDomainBlock,
  domainAccountIdsPage,
  domainBlockSeverities,
  instanceDomainBlockById,
  putInstanceDomainBlock,
  type DomainBlockSeverity,
  type InstanceDomainBlock,
} from '../db/instance_domain_blocks';
import { nowIso } from '../db/table';
import { HttpError, notFound } from '../errors';
import { newId } from '../ids';
import { log } from '../log';
import { coveringDomains, forgetDomainAllows, forgetInstanceDomainBlocks } from '../policy/instance_domains';
import { recordAction } from './audit';
import { removeRemoteActor } from './remote_removal';
import { commentField, domainField, oneOf } from './block_input';

// ---- purging a suspended domain ----

export type PurgeProgress = { accounts: number; done: boolean };

/** Accounts read per page of a domain's index. */
const PURGE_PAGE = 25;

/**
 * Removes the accounts stored from `domain` (exactly that domain), each with its statuses and follows both ways:
 * at most `maxAccounts` finished per call, and each account's removal itself bounded (lib/inbox/delete.ts
 * remoteRemovalLimits). Answers how many accounts went and whether any remain. An account whose removal stopped
 * at its bound stays indexed, so the next call picks it up again.
 */
export async function purgeDomain(domain: string, maxAccounts = 50): Promise<PurgeProgress> {
  let removed = 0;
  while (removed < maxAccounts) {
    const { ids } = await domainAccountIdsPage(domain, Math.min(PURGE_PAGE, maxAccounts - removed));
    if (ids.length === 0) return { accounts: removed, done: true };
    for (const id of ids) {
      const account = await accountById(id);
      if (account && account.domain !== null) {
        if ((await removeRemoteActor(account)) === 'more') return { accounts: removed, done: false };
      } else {
        // The account went another way (a Delete of the actor): only its index item was left.
        await deleteDomainAccount(domain, id);
      }
      removed++;
    }
  }
  return { accounts: removed, done: (await domainAccountIdsPage(domain, 1)).ids.length === 0 };
}

/** The known domains a block of `domain` covers: itself and its subdomains. */
export async function coveredPeers(domain: string): Promise<string[]> {
  const peers = await allPeers();
  return [...new Set([domain, ...peers.filter((p) => coveringDomains(p).includes(domain))])];
}

/** Purges every known domain the block covers, at most `maxAccounts` accounts in all; answers the count and whether all are gone. */
export async function purgeCovered(domain: string, maxAccounts = Number.POSITIVE_INFINITY): Promise<PurgeProgress> {
  let total = 0;
  for (const peer of await coveredPeers(domain)) {
    for (;;) {
      if (total >= maxAccounts) return { accounts: total, done: false };
      const progress = await purgeDomain(peer, Math.min(50, maxAccounts - total));
      total += progress.accounts;
      if (progress.done) break;
    }
  }
  return { accounts: total, done: true };
}

/** Accounts the sweeper removes per run, over every suspension still being purged. */
export const SWEEP_PURGE_ACCOUNTS = 50;

/**
 * The sweeper's share of the suspensions made through the API: a run's worth of each pending purge; a block whose
 * purge is done is marked so. Answers how many accounts went.
 */
export async function continueDomainPurges(maxAccounts = SWEEP_PURGE_ACCOUNTS): Promise<number> {
  const pending = (await allInstanceDomainBlocks(true)).filter((b) => b.purgePending && b.severity === 'suspend');
  let removed = 0;
  for (const block of pending) {
    if (removed >= maxAccounts) break;
    const progress = await purgeCovered(block.domain, maxAccounts - removed);
    removed += progress.accounts;
    if (progress.done) {
      await putInstanceDomainBlock({ ...block, purgePending: false });
      log.info('domain suspension: stored accounts purged', { domain: block.domain });
    }
  }
  return removed;
}

// ---- domain blocks ----

export type DomainBlockChanges = {
  severity?: unknown;
  reject_media?: boolean;
  reject_reports?: boolean;
  private_comment?: unknown;
  public_comment?: unknown;
  obfuscate?: boolean;
};

/** The block that covers `domain` now (itself or a parent), most specific first, as Mastodon's DomainBlock.rule_for. */
async function ruleFor(domain: string): Promise<InstanceDomainBlock | undefined> {
  const byDomain = new Map((await allInstanceDomainBlocks(true)).map((b) => [b.domain, b]));
  for (const name of coveringDomains(domain)) {
    const block = byDomain.get(name);
    if (block) return block;
  }
  return undefined;
}

/** A 422 carrying the block already in force, as Mastodon's ExistingDomainBlockErrorSerializer. */
export class ExistingDomainBlock extends HttpError {
  constructor(readonly block: InstanceDomainBlock, rendered: unknown) {
    super(422, `You have already imposed stricter limits on ${block.domain}.`, { existing_domain_block: rendered });
  }
}

function applied(block: InstanceDomainBlock, changes: DomainBlockChanges): InstanceDomainBlock {
  return {
    ...block,
    severity: changes.severity === undefined ? block.severity : oneOf<DomainBlockSeverity>(changes.severity, domainBlockSeverities, 'Severity'),
    rejectMedia: changes.reject_media ?? block.rejectMedia,
    rejectReports: changes.reject_reports ?? block.rejectReports,
    privateComment: changes.private_comment === undefined ? block.privateComment : commentField(changes.private_comment, 'Private comment'),
    publicComment: changes.public_comment === undefined ? block.publicComment : commentField(changes.public_comment, 'Public comment'),
    obfuscate: changes.obfuscate ?? block.obfuscate,
  };
}

/**
 * Blocks a domain (POST /api/v1/admin/domain_blocks): 422 naming the field for a bad value, or carrying the block
 * already covering the domain (itself or a parent), as Mastodon answers. Severity `silence` unless given.
 */
export async function createDomainBlock(
  moderator: Account,
  input: DomainBlockChanges & { domain?: unknown },
  render: (block: InstanceDomainBlock) => unknown,
): Promise<InstanceDomainBlock> {
  const domain = domainField(input.domain);
  const now = nowIso();
  const block = applied(
    { id: newId(), domain, severity: 'silence', rejectMedia: false, rejectReports: false, obfuscate: false, publicComment: '', privateComment: '', purgePending: false, createdAt: now, updatedAt: now },
    input,
  );
  const existing = await ruleFor(domain);
  if (existing) throw new ExistingDomainBlock(existing, render(existing));
  const stored = { ...block, purgePending: block.severity === 'suspend' };
  if (!(await createInstanceDomainBlock(stored))) {
    const raced = await ruleFor(domain);
    if (raced) throw new ExistingDomainBlock(raced, render(raced));
  }
  forgetInstanceDomainBlocks();
  await recordAction(moderator, 'create', { type: 'DomainBlock', id: stored.id, human: domain });
  return stored;
}

/** The block with this id, or 404. */
export async function domainBlockOrNotFound(id: string): Promise<InstanceDomainBlock> {
  const block = await instanceDomainBlockById(id);
  if (!block) throw notFound();
  return block;
}

/** Changes a block (PUT /api/v1/admin/domain_blocks/:id); becoming a suspension starts the purge. */
export async function updateDomainBlock(moderator: Account, id: string, changes: DomainBlockChanges): Promise<InstanceDomainBlock> {
  const block = await domainBlockOrNotFound(id);
  const next = applied(block, changes);
  const updated = { ...next, updatedAt: nowIso(), purgePending: next.severity === 'suspend' && (block.severity !== 'suspend' || block.purgePending) };
  await putInstanceDomainBlock(updated);
  forgetInstanceDomainBlocks();
  await recordAction(moderator, 'update', { type: 'DomainBlock', id: block.id, human: block.domain });
  return updated;
}

/** Lifts a block (DELETE /api/v1/admin/domain_blocks/:id). What a suspension removed stays removed, as in Mastodon. */
export async function liftDomainBlock(moderator: Account, id: string): Promise<void> {
  const block = await domainBlockOrNotFound(id);
  if (!(await deleteInstanceDomainBlock(block.domain))) throw notFound();
  forgetInstanceDomainBlocks();
  await recordAction(moderator, 'destroy', { type: 'DomainBlock', id: block.id, human: block.domain });
}

// ---- domain allows ----

/** Allows a domain (POST /api/v1/admin/domain_allows): the existing allow when there is one, as Mastodon answers. */
export async function allowDomain(moderator: Account, input: { domain?: unknown }): Promise<DomainAllow> {
  const domain = domainField(input.domain);
  const existing = await domainAllowOf(domain);
  if (existing) return existing;
  const allow: DomainAllow = { id: newId(), domain, createdAt: nowIso() };
  if (!(await createDomainAllow(allow))) {
    const raced = await domainAllowOf(domain);
    if (raced) return raced;
  }
  forgetDomainAllows();
  await recordAction(moderator, 'create', { type: 'DomainAllow', id: allow.id, human: domain });
  return allow;
}

export async function domainAllowOrNotFound(id: string): Promise<DomainAllow> {
  const allow = await domainAllowById(id);
  if (!allow) throw notFound();
  return allow;
}

/**
 * Removes an allow (DELETE /api/v1/admin/domain_allows/:id): in limited federation mode the domain stops
 * federating at once (its inbox requests refused, nothing sent to it or fetched from it).
 */
export async function disallowDomain(moderator: Account, id: string): Promise<void> {
  const allow = await domainAllowOrNotFound(id);
  if (!(await deleteDomainAllow(allow))) throw notFound();
  forgetDomainAllows();
  await recordAction(moderator, 'destroy', { type: 'DomainAllow', id: allow.id, human: allow.domain });
}
