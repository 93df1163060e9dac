// The operator's domain blocks (Mastodon's DomainBlock): one item per blocked
// domain in one partition, so the whole list is one Query that lib/policy
// caches for a short while (and the admin API pages in memory: an instance
// blocks hundreds of domains, not millions); the peers index (every domain we hold a remote
// account of, GET /api/v1/instance/peers); and the accounts of each domain,
// which suspending a domain removes page by page. The last two are written
// when a remote account is stored (lib/db/remote.ts createRemoteAccount).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { idAt } from '../ids';
import type { Page } from '../paging';
import { pageOfWhole } from './id_range';
import * as keys from './keys';
import { deleteItem, getItem, putItem, query, queryAll, type Item, type TransactItem } from './table';

/** Mastodon's severities: noop blocks nothing by itself (a block only to reject media or reports). */
export const domainBlockSeverities = ['silence', 'suspend', 'noop'] as const;
export type DomainBlockSeverity = (typeof domainBlockSeverities)[number];

const storedBlockItem = z.object({
  /** The admin API's id; blocks written before it existed have none stored (see `withId`). */
  id: z.string().optional(),
  /** Lower-case host (punycode), as remote accounts store their domain. */
  domain: z.string(),
  severity: z.enum(domainBlockSeverities),
  /** Remote files of the domain are not copied (lib/federation/remote_media.ts). */
  rejectMedia: z.boolean().default(false),
  /** Flags (reports) sent from the domain are dropped (lib/inbox/flag.ts). */
  rejectReports: z.boolean().default(false),
  /** The public list shows the domain partly starred out (lib/render/domain_block.ts). */
  obfuscate: z.boolean().default(false),
  /** A suspension made through the admin API whose stored accounts the sweeper is still removing (lib/moderation/domain_blocks.ts). */
  purgePending: z.boolean().default(false),
  /** Shown with the public list of blocks (when the operator makes it public). */
  publicComment: z.string().default(''),
  /** For the operators only. */
  privateComment: z.string().default(''),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/**
 * The id of a block stored before blocks had ids: derived from its creation time and its domain, so it is the
 * same on every read until the block is next written (which stores it).
 */
export function legacyBlockId(domain: string, createdAt: string): string {
  const at = Date.parse(createdAt);
  const low = createHash('sha256').update(domain).digest().readUInt16BE(0);
  return (BigInt(idAt(Number.isNaN(at) ? 0 : at)) | BigInt(low)).toString();
}

const withId = <T extends z.infer<typeof storedBlockItem>>(b: T): T & { id: string } => ({ ...b, id: b.id ?? legacyBlockId(b.domain, b.createdAt) });

export const instanceDomainBlockItem = storedBlockItem.transform(withId);
export type InstanceDomainBlock = z.infer<typeof instanceDomainBlockItem>;
export type InstanceDomainBlockInput = z.input<typeof storedBlockItem>;

/** Writes (or replaces) the block of `block.domain`; the first block's createdAt and id are the caller's to keep. */
export async function putInstanceDomainBlock(block: InstanceDomainBlockInput): Promise<void> {
  const parsed = storedBlockItem.parse({ ...block, domain: block.domain.toLowerCase() });
  await putItem({ ...keys.instanceDomainBlock(parsed.domain), ...parsed });
}

/** Writes a new block unless the domain has one: false then, and nothing is written. */
export async function createInstanceDomainBlock(block: InstanceDomainBlockInput): Promise<boolean> {
  const parsed = storedBlockItem.parse({ ...block, domain: block.domain.toLowerCase() });
  return putItem({ ...keys.instanceDomainBlock(parsed.domain), ...parsed }, { ifAbsent: true });
}

export const instanceDomainBlockOf = (domain: string): Promise<InstanceDomainBlock | undefined> =>
  getItem(keys.instanceDomainBlock(domain), instanceDomainBlockItem, true);

/** Removes the block; answers it, or undefined when the domain was not blocked. */
export const deleteInstanceDomainBlock = (domain: string): Promise<InstanceDomainBlock | undefined> =>
  deleteItem(keys.instanceDomainBlock(domain), instanceDomainBlockItem, { ConditionExpression: 'attribute_exists(PK)' });

/** Every block, by domain (the partition read whole: an instance blocks hundreds of domains, not millions). */
export const allInstanceDomainBlocks = (consistent = false): Promise<InstanceDomainBlock[]> =>
  queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.instanceDomainBlocksPartition() }, ConsistentRead: consistent },
    instanceDomainBlockItem,
  );

/** A page of the blocks by id, newest first (the admin API), from one consistent read of the partition. */
export const instanceDomainBlocksPage = async (page: Page): Promise<InstanceDomainBlock[]> => pageOfWhole(await allInstanceDomainBlocks(true), page);

/** The block with this id (the admin API). */
export const instanceDomainBlockById = async (id: string): Promise<InstanceDomainBlock | undefined> =>
  (await allInstanceDomainBlocks(true)).find((b) => b.id === id);

// ---- peers ----

const peerItem = z.object({ domain: z.string(), firstSeenAt: z.string() });

/** Remembers that we know `domain` (idempotent: the first sighting's time stays). */
export async function recordPeer(domain: string, at = new Date()): Promise<void> {
  await putItem({ ...keys.peer(domain), domain: domain.toLowerCase(), firstSeenAt: at.toISOString() }, { ifAbsent: true });
}

/** Every domain we know, in domain order. */
export async function allPeers(): Promise<string[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.peersPartition() } }, peerItem);
  return items.map((p) => p.domain);
}

// ---- accounts of a domain ----

const domainAccountItem = z.object({ accountId: z.string() });

/** The index item of a remote account under its domain, for the transaction that stores the account. */
export const domainAccountPut = (domain: string, accountId: string): TransactItem => ({
  Put: { Item: { ...keys.domainAccount(domain, accountId), accountId } },
});

/** Drops the index item (the account is gone). */
export async function deleteDomainAccount(domain: string, accountId: string): Promise<void> {
  await deleteItem(keys.domainAccount(domain, accountId), domainAccountItem);
}

/** A page of the ids of the accounts stored from `domain`, oldest first, with the key to continue from. */
export async function domainAccountIdsPage(domain: string, limit: number, startKey?: Item): Promise<{ ids: string[]; lastKey?: Item }> {
  const page = await query(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.domainAccountsPartition(domain) }, Limit: limit, ExclusiveStartKey: startKey },
    domainAccountItem,
  );
  return { ids: page.items.map((i) => i.accountId), lastKey: page.lastKey };
}
