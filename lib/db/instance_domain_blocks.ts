// The operator's domain blocks (Mastodon's DomainBlock): one item per blocked
// domain in one partition, so the whole list is one Query that lib/policy
// caches for a short while; the peers index (every domain we hold a remote
// account of, GET /api/v1/instance/peers); and the accounts of each domain,
// which suspending a domain removes page by page. The last two are written
// when a remote account is stored (lib/db/remote.ts createRemoteAccount).
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, getItem, putItem, query, queryAll, type Item, type TransactItem } from './table';

export const domainBlockSeverities = ['silence', 'suspend'] as const;
export type DomainBlockSeverity = (typeof domainBlockSeverities)[number];

export const instanceDomainBlockItem = z.object({
  /** Lower-case host (punycode), as remote accounts store their domain. */
  domain: z.string(),
  severity: z.enum(domainBlockSeverities),
  /** Shown with the public list of blocks (when the operator makes it public). */
  publicComment: z.string().default(''),
  /** For the operators only. */
  privateComment: z.string().default(''),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type InstanceDomainBlock = z.infer<typeof instanceDomainBlockItem>;

/** Writes (or replaces) the block of `block.domain`; the first block's createdAt is the caller's to keep. */
export async function putInstanceDomainBlock(block: InstanceDomainBlock): Promise<void> {
  const parsed = instanceDomainBlockItem.parse({ ...block, domain: block.domain.toLowerCase() });
  await putItem({ ...keys.instanceDomainBlock(parsed.domain), ...parsed });
}

export const instanceDomainBlockOf = (domain: string): Promise<InstanceDomainBlock | undefined> =>
  getItem(keys.instanceDomainBlock(domain), instanceDomainBlockItem, true);

/** Removes the block; answers it, or undefined when the domain was not blocked. */
export const deleteInstanceDomainBlock = (domain: string): Promise<InstanceDomainBlock | undefined> =>
  deleteItem(keys.instanceDomainBlock(domain), instanceDomainBlockItem, { ConditionExpression: 'attribute_exists(PK)' });

/** Every block, by domain (the partition read whole: an instance blocks hundreds of domains, not millions). */
export const allInstanceDomainBlocks = (): Promise<InstanceDomainBlock[]> =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.instanceDomainBlocksPartition() } }, instanceDomainBlockItem);

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
