// The domains allowed to federate in limited federation mode (Mastodon's DomainAllow): one item per domain in
// one partition, read whole (lib/policy/instance_domains.ts keeps it per container for a short while, the admin
// API pages it in memory: an allow-list names tens of servers, not millions).
import { z } from 'zod';
import type { Page } from '../paging';
import { pageOfWhole } from './id_range';
import * as keys from './keys';
import { deleteItem, getItem, putItem, queryAll } from './table';

export const domainAllowItem = z.object({
  id: z.string(),
  /** Lower-case host (punycode), as remote accounts store their domain. */
  domain: z.string(),
  createdAt: z.string(),
});
export type DomainAllow = z.infer<typeof domainAllowItem>;

/** Stores an allow unless the domain has one: false then, and nothing is written. */
export const createDomainAllow = (allow: DomainAllow): Promise<boolean> =>
  putItem({ ...keys.domainAllow(allow.domain), ...domainAllowItem.parse({ ...allow, domain: allow.domain.toLowerCase() }) }, { ifAbsent: true });

/** Every allow (the partition read whole). */
export const allDomainAllows = (consistent = false): Promise<DomainAllow[]> =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.domainAllowsPartition() }, ConsistentRead: consistent }, domainAllowItem);

export const domainAllowsPage = async (page: Page): Promise<DomainAllow[]> => pageOfWhole(await allDomainAllows(true), page);

export const domainAllowById = async (id: string): Promise<DomainAllow | undefined> => (await allDomainAllows(true)).find((a) => a.id === id);

export const domainAllowOf = (domain: string): Promise<DomainAllow | undefined> => getItem(keys.domainAllow(domain), domainAllowItem, true);

/** Removes the allow of `domain`, if it is still the one with `id`; answers it, or undefined. */
export const deleteDomainAllow = (allow: Pick<DomainAllow, 'id' | 'domain'>): Promise<DomainAllow | undefined> =>
  deleteItem(keys.domainAllow(allow.domain), domainAllowItem, { ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': allow.id } });
