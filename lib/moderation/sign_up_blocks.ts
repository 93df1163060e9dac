// The sign-up rules as the admin API changes them (Mastodon's Api::V1::Admin::EmailDomainBlocksController,
// CanonicalEmailBlocksController and IpBlocksController): each change checked as Mastodon validates it, stored
// once (a second rule for the same domain, hash or range is "has already been taken"), recorded in the audit log.
// What the rules do at sign-up and to requests is lib/policy/sign_up.ts and lib/policy/ip_blocks.ts.
import type { Account } from '../db/accounts';
import {
  canonicalEmailBlockById,
  canonicalEmailBlockOf,
  createCanonicalEmailBlock,
  createEmailDomainBlock,
  createIpBlock,
  deleteCanonicalEmailBlock,
  deleteEmailDomainBlock,
  deleteIpBlock,
  emailDomainBlockById,
  emailDomainBlockDays,
  ipBlockById,
  ipBlockSeverities,
  replaceIpBlock,
  type CanonicalEmailBlock,
  type EmailDomainBlock,
  type EmailDomainBlockDay,
  type IpBlock,
  type IpBlockSeverity,
} from '../db/sign_up_blocks';
import { nowIso } from '../db/table';
import { notFound } from '../errors';
import { newId } from '../ids';
import { canonicalCidr } from '../net';
import { forgetIpBlocks } from '../policy/ip_blocks';
import { canonicalEmailHash } from '../policy/sign_up';
import { recordAction } from './audit';
import { commentField, domainField, oneOf, validationFailed } from './block_input';

// ---- e-mail domain blocks ----

/** Blocks sign-ups from an e-mail domain and its subdomains (or, with `allow_with_approval`, holds them for approval). */
export async function blockEmailDomain(moderator: Account, input: { domain?: unknown; allow_with_approval?: boolean }): Promise<EmailDomainBlock> {
  const block: EmailDomainBlock = { id: newId(), domain: domainField(input.domain), allowWithApproval: input.allow_with_approval ?? false, createdAt: nowIso() };
  if (!(await createEmailDomainBlock(block))) throw validationFailed('Domain', 'has already been taken');
  await recordAction(moderator, 'create', { type: 'EmailDomainBlock', id: block.id, human: block.domain });
  return block;
}

export async function emailDomainBlockOrNotFound(id: string): Promise<EmailDomainBlock> {
  const block = await emailDomainBlockById(id);
  if (!block) throw notFound();
  return block;
}

export async function unblockEmailDomain(moderator: Account, id: string): Promise<void> {
  const block = await emailDomainBlockOrNotFound(id);
  if (!(await deleteEmailDomainBlock(block))) throw notFound();
  await recordAction(moderator, 'destroy', { type: 'EmailDomainBlock', id: block.id, human: block.domain });
}

/** The last seven days (YYYY-MM-DD, UTC), today first. */
export const lastSevenDays = (now = Date.now()): string[] =>
  Array.from({ length: 7 }, (_, i) => new Date(now - i * 86_400_000).toISOString().slice(0, 10));

/** A block's seven days of refused attempts, today first (one batch read). */
export const historyOf = (block: EmailDomainBlock): Promise<EmailDomainBlockDay[]> => emailDomainBlockDays(block.id, lastSevenDays());

/** Each block with its seven days of refused attempts (one batch read per block). */
export const withHistories = (blocks: EmailDomainBlock[]): Promise<[EmailDomainBlock, EmailDomainBlockDay[]][]> =>
  Promise.all(blocks.map(async (b) => [b, await emailDomainBlockDays(b.id, lastSevenDays())] as [EmailDomainBlock, EmailDomainBlockDay[]]));

// ---- canonical e-mail blocks ----

const HASH = /^[0-9a-f]{64}$/i;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** The hash a create names: of `email` when given (the hash then ignored), else `canonical_email_hash` itself. */
function hashOf(input: { email?: unknown; canonical_email_hash?: unknown }): string {
  if (typeof input.email === 'string' && input.email.trim() !== '') {
    if (!EMAIL.test(input.email.trim())) throw validationFailed('Email', 'is invalid');
    return canonicalEmailHash(input.email);
  }
  const hash = typeof input.canonical_email_hash === 'string' ? input.canonical_email_hash.trim().toLowerCase() : '';
  if (hash === '') throw validationFailed('Canonical email hash', "can't be blank");
  if (!HASH.test(hash)) throw validationFailed('Canonical email hash', 'is invalid');
  return hash;
}

export async function blockCanonicalEmail(moderator: Account, input: { email?: unknown; canonical_email_hash?: unknown }): Promise<CanonicalEmailBlock> {
  const block: CanonicalEmailBlock = { id: newId(), canonicalEmailHash: hashOf(input), referenceAccountId: null, createdAt: nowIso() };
  if (!(await createCanonicalEmailBlock(block))) throw validationFailed('Canonical email hash', 'has already been taken');
  await recordAction(moderator, 'create', { type: 'CanonicalEmailBlock', id: block.id, human: block.canonicalEmailHash });
  return block;
}

/** The blocks matching an address (POST /api/v1/admin/canonical_email_blocks/test): none or one. */
export async function canonicalEmailBlocksMatching(email: unknown): Promise<CanonicalEmailBlock[]> {
  if (typeof email !== 'string' || email.trim() === '') throw validationFailed('Email', "can't be blank");
  const block = await canonicalEmailBlockOf(canonicalEmailHash(email));
  return block ? [block] : [];
}

export async function canonicalEmailBlockOrNotFound(id: string): Promise<CanonicalEmailBlock> {
  const block = await canonicalEmailBlockById(id);
  if (!block) throw notFound();
  return block;
}

export async function unblockCanonicalEmail(moderator: Account, id: string): Promise<void> {
  const block = await canonicalEmailBlockOrNotFound(id);
  if (!(await deleteCanonicalEmailBlock(block))) throw notFound();
  await recordAction(moderator, 'destroy', { type: 'CanonicalEmailBlock', id: block.id, human: block.canonicalEmailHash });
}

// ---- IP blocks ----

export type IpBlockInput = { ip?: unknown; severity?: unknown; comment?: unknown; expires_in?: number | null };

/** Mastodon's longest expiry offered is three years; anything up to a century is taken. */
const EXPIRES_IN_MAX = 100 * 365 * 86_400;

function cidrField(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw validationFailed('Ip', "can't be blank");
  const cidr = canonicalCidr(text);
  if (!cidr) throw validationFailed('Ip', 'is invalid');
  return cidr;
}

function expiresAtOf(expiresIn: number | null | undefined, now: number): string | null | undefined {
  if (expiresIn === undefined) return undefined;
  if (expiresIn === null) return null;
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > EXPIRES_IN_MAX) throw validationFailed('Expires in', 'is invalid');
  return new Date(now + expiresIn * 1000).toISOString();
}

export async function createIpRule(moderator: Account, input: IpBlockInput): Promise<IpBlock> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const block: IpBlock = {
    id: newId(),
    // Mastodon's default when no ip is given.
    cidr: input.ip === undefined ? '0.0.0.0/32' : cidrField(input.ip),
    severity: oneOf<IpBlockSeverity>(input.severity, ipBlockSeverities, 'Severity'),
    comment: commentField(input.comment, 'Comment'),
    expiresAt: expiresAtOf(input.expires_in, now) ?? null,
    createdAt: at,
    updatedAt: at,
  };
  if (!(await createIpBlock(block))) throw validationFailed('Ip', 'has already been taken');
  forgetIpBlocks();
  await recordAction(moderator, 'create', { type: 'IpBlock', id: block.id, human: block.cidr });
  return block;
}

export async function ipBlockOrNotFound(id: string): Promise<IpBlock> {
  const block = await ipBlockById(id);
  if (!block) throw notFound();
  return block;
}

export async function updateIpRule(moderator: Account, id: string, input: IpBlockInput): Promise<IpBlock> {
  const block = await ipBlockOrNotFound(id);
  const now = Date.now();
  const expiresAt = expiresAtOf(input.expires_in, now);
  const next: IpBlock = {
    ...block,
    cidr: input.ip === undefined ? block.cidr : cidrField(input.ip),
    severity: input.severity === undefined ? block.severity : oneOf<IpBlockSeverity>(input.severity, ipBlockSeverities, 'Severity'),
    comment: input.comment === undefined ? block.comment : commentField(input.comment, 'Comment'),
    expiresAt: expiresAt === undefined ? block.expiresAt : expiresAt,
    updatedAt: new Date(now).toISOString(),
  };
  if (!(await replaceIpBlock(block, next))) throw validationFailed('Ip', 'has already been taken');
  forgetIpBlocks();
  await recordAction(moderator, 'update', { type: 'IpBlock', id: block.id, human: next.cidr });
  return next;
}

export async function deleteIpRule(moderator: Account, id: string): Promise<void> {
  const block = await ipBlockOrNotFound(id);
  if (!(await deleteIpBlock(block))) throw notFound();
  forgetIpBlocks();
  await recordAction(moderator, 'destroy', { type: 'IpBlock', id: block.id, human: block.cidr });
}
