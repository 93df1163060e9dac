// What refuses or holds a sign-up (Mastodon's EmailDomainBlock, CanonicalEmailBlock and IpBlock). Each rule is
// one item keyed by what it matches, so a rule is stored once (`attribute_not_exists`): an e-mail domain by the
// domain (a sign-up reads its address's domain and parents by key), a canonical e-mail by its hash (one GetItem),
// an IP range by its canonical CIDR. E-mail rules are listed by id through GSI1 (there may be thousands); the IP
// rules are one partition read whole, as every request's no-access check needs them whole (lib/policy/ip_blocks.ts).
import { z } from 'zod';
import type { Page } from '../paging';
import { pageOfWhole, queryIdRange } from './id_range';
import * as gsi1 from './gsi1';
import * as keys from './keys';
import { batchGet, deleteItem, getItem, putItem, query, queryAll, updateItem } from './table';

// ---- e-mail domain blocks ----

export const emailDomainBlockItem = z.object({
  id: z.string(),
  /** Lower-case domain (punycode). */
  domain: z.string(),
  /** Sign-ups from it are held for approval instead of refused (Mastodon's allow_with_approval). */
  allowWithApproval: z.boolean().default(false),
  createdAt: z.string(),
});
export type EmailDomainBlock = z.infer<typeof emailDomainBlockItem>;

const emailDomainBlockRecord = (block: EmailDomainBlock) => ({
  ...keys.emailDomainBlock(block.domain),
  ...gsi1.emailDomainBlockById(block.id),
  ...emailDomainBlockItem.parse({ ...block, domain: block.domain.toLowerCase() }),
});

/** Stores a block unless the domain has one: false then, and nothing is written. */
export const createEmailDomainBlock = (block: EmailDomainBlock): Promise<boolean> => putItem(emailDomainBlockRecord(block), { ifAbsent: true });

const emailDomainBlocksById = { index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.emailDomainBlocksByIdPartition } as const;

export const emailDomainBlocksPage = (page: Page): Promise<EmailDomainBlock[]> => queryIdRange(emailDomainBlocksById, page, emailDomainBlockItem);

export async function emailDomainBlockById(id: string): Promise<EmailDomainBlock | undefined> {
  const { items } = await query(
    { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p AND GSI1SK = :s', ExpressionAttributeValues: { ':p': gsi1.emailDomainBlocksByIdPartition, ':s': gsi1.emailDomainBlockById(id).GSI1SK } },
    emailDomainBlockItem,
  );
  return items[0];
}

/** The blocks of these exact domains (an address's domain and its parents), most specific first. */
export async function emailDomainBlocksOf(domains: string[]): Promise<EmailDomainBlock[]> {
  const found = await batchGet(domains.map(keys.emailDomainBlock), emailDomainBlockItem);
  return [...found.values()].sort((a, b) => b.domain.length - a.domain.length);
}

export const deleteEmailDomainBlock = (block: Pick<EmailDomainBlock, 'id' | 'domain'>): Promise<EmailDomainBlock | undefined> =>
  deleteItem(keys.emailDomainBlock(block.domain), emailDomainBlockItem, { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': block.id } });

const dayItem = z.object({ uses: z.number().default(0), accounts: z.number().default(0) });
export type EmailDomainBlockDay = { day: string; uses: number; accounts: number };

/**
 * Counts a sign-up the block refused on `day` (YYYY-MM-DD): every attempt in `uses`, each address it came from
 * once in `accounts`.
 */
export async function recordEmailDomainBlockAttempt(blockId: string, day: string, ip: string): Promise<void> {
  const firstFromIp = ip !== '' && (await putItem({ ...keys.emailDomainBlockDayIp(blockId, day, ip), expiresAt: Math.floor(Date.now() / 1000) + 8 * 86_400 }, { ifAbsent: true }));
  await updateItem(
    {
      Key: keys.emailDomainBlockDay(blockId, day),
      UpdateExpression: 'ADD uses :one, accounts :new SET expiresAt = :exp',
      ExpressionAttributeValues: { ':one': 1, ':new': firstFromIp ? 1 : 0, ':exp': Math.floor(Date.now() / 1000) + 8 * 86_400 },
    },
    dayItem,
  );
}

/** The counts of these days (YYYY-MM-DD) for a block, in the order asked; a day without attempts counts zero. */
export async function emailDomainBlockDays(blockId: string, days: string[]): Promise<EmailDomainBlockDay[]> {
  const found = await batchGet(days.map((d) => keys.emailDomainBlockDay(blockId, d)), dayItem);
  return days.map((day) => {
    const k = keys.emailDomainBlockDay(blockId, day);
    const counts = found.get(`${k.PK}|${k.SK}`);
    return { day, uses: counts?.uses ?? 0, accounts: counts?.accounts ?? 0 };
  });
}

// ---- canonical e-mail blocks ----

export const canonicalEmailBlockItem = z.object({
  id: z.string(),
  /** SHA-256 hex of the canonical address (lib/moderation/email_blocks.ts canonicalEmail). */
  canonicalEmailHash: z.string(),
  /** The account whose address was blocked, when the block came from an action on it. */
  referenceAccountId: z.string().nullable().default(null),
  createdAt: z.string(),
});
export type CanonicalEmailBlock = z.infer<typeof canonicalEmailBlockItem>;

/** Stores a block unless the hash has one: false then, and nothing is written. */
export const createCanonicalEmailBlock = (block: CanonicalEmailBlock): Promise<boolean> =>
  putItem(
    { ...keys.canonicalEmailBlock(block.canonicalEmailHash), ...gsi1.canonicalEmailBlockById(block.id), ...canonicalEmailBlockItem.parse({ ...block, canonicalEmailHash: block.canonicalEmailHash.toLowerCase() }) },
    { ifAbsent: true },
  );

const canonicalById = { index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.canonicalEmailBlocksByIdPartition } as const;

export const canonicalEmailBlocksPage = (page: Page): Promise<CanonicalEmailBlock[]> => queryIdRange(canonicalById, page, canonicalEmailBlockItem);

export async function canonicalEmailBlockById(id: string): Promise<CanonicalEmailBlock | undefined> {
  const { items } = await query(
    { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p AND GSI1SK = :s', ExpressionAttributeValues: { ':p': gsi1.canonicalEmailBlocksByIdPartition, ':s': gsi1.canonicalEmailBlockById(id).GSI1SK } },
    canonicalEmailBlockItem,
  );
  return items[0];
}

export const canonicalEmailBlockOf = (hash: string): Promise<CanonicalEmailBlock | undefined> => getItem(keys.canonicalEmailBlock(hash), canonicalEmailBlockItem, true);

export const deleteCanonicalEmailBlock = (block: Pick<CanonicalEmailBlock, 'id' | 'canonicalEmailHash'>): Promise<CanonicalEmailBlock | undefined> =>
  deleteItem(keys.canonicalEmailBlock(block.canonicalEmailHash), canonicalEmailBlockItem, { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': block.id } });

// ---- IP blocks ----

export const ipBlockSeverities = ['sign_up_requires_approval', 'sign_up_block', 'no_access'] as const;
export type IpBlockSeverity = (typeof ipBlockSeverities)[number];

export const ipBlockItem = z.object({
  id: z.string(),
  /** The range in canonical form: network address (masked) and prefix length, `192.0.2.0/24`, `2001:db8::/32`. */
  cidr: z.string(),
  severity: z.enum(ipBlockSeverities),
  comment: z.string().default(''),
  /** After it the rule applies no more (null: never). */
  expiresAt: z.string().nullable().default(null),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type IpBlock = z.infer<typeof ipBlockItem>;

/** Stores a rule unless its range has one: false then, and nothing is written. */
export const createIpBlock = (block: IpBlock): Promise<boolean> => putItem({ ...keys.ipBlock(block.cidr), ...ipBlockItem.parse(block) }, { ifAbsent: true });

/**
 * Replaces a rule (its range may have changed: the new range's item is written unless another rule holds it, then
 * the old one removed). False when the new range is taken.
 */
export async function replaceIpBlock(before: IpBlock, after: IpBlock): Promise<boolean> {
  const record = { ...keys.ipBlock(after.cidr), ...ipBlockItem.parse(after) };
  if (before.cidr === after.cidr) {
    await putItem(record);
    return true;
  }
  if (!(await putItem(record, { ifAbsent: true }))) return false;
  await deleteIpBlock(before);
  return true;
}

/** Every rule, expired ones too (the partition read whole). */
export const allIpBlocks = (consistent = false): Promise<IpBlock[]> =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.ipBlocksPartition() }, ConsistentRead: consistent }, ipBlockItem);

export const ipBlocksPage = async (page: Page): Promise<IpBlock[]> => pageOfWhole(await allIpBlocks(true), page);

export const ipBlockById = async (id: string): Promise<IpBlock | undefined> => (await allIpBlocks(true)).find((b) => b.id === id);

export const deleteIpBlock = (block: Pick<IpBlock, 'id' | 'cidr'>): Promise<IpBlock | undefined> =>
  deleteItem(keys.ipBlock(block.cidr), ipBlockItem, { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': block.id } });
