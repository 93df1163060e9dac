// The moderators' account list (GET /api/v1 and /api/v2/admin/accounts): every account, local and remote, in
// facets by id. A facet is a sparse partition holding the accounts in one state (`pending`, `silenced`, ...) or of
// one origin, or signed up from one address; the writes that change a state keep its facet (lib/db/accounts.ts
// `updateAccount`, `approveAccount`, `setRole`, the creating transactions). Each facet item carries the account's
// lower-cased username and host, so that the username and domain filters run in the Query's FilterExpression and
// cost no account read.
import { z } from 'zod';
import { pageRange, type IdRange } from '../paging';
import * as gsi1 from './gsi1';
import * as keys from './keys';
import { batchWrite, query, type Item, type TransactItem } from './table';

export const STATE_FACETS = ['pending', 'staff', 'silenced', 'suspended', 'disabled', 'sensitized'] as const;
export type StateFacet = (typeof STATE_FACETS)[number];
export type Facet = 'all' | 'local' | 'remote' | StateFacet | `ip#${string}`;

/** What of an account decides its facets. */
export type FacetSource = {
  id: string;
  username: string;
  domain: string | null;
  approved: boolean;
  roleId: string | null;
  admin: boolean;
  silencedAt: string | null;
  suspendedAt: string | null;
  disabled: boolean;
  sensitizedAt: string | null;
  signUpIp?: string | null;
};

export const ipFacet = (ip: string): Facet => `ip#${ip.toLowerCase()}`;

/** The facets an account belongs to as it is. */
export function facetsOf(a: FacetSource): Facet[] {
  const local = a.domain === null;
  const out: Facet[] = ['all', local ? 'local' : 'remote'];
  if (local && !a.approved) out.push('pending');
  if (local && (a.roleId !== null || a.admin)) out.push('staff');
  if (a.silencedAt) out.push('silenced');
  if (a.suspendedAt) out.push('suspended');
  if (a.disabled) out.push('disabled');
  if (a.sensitizedAt) out.push('sensitized');
  if (local && a.signUpIp) out.push(ipFacet(a.signUpIp));
  return out;
}

const facetItem = (facet: Facet, a: FacetSource) => ({
  ...keys.adminAccountFacet(facet, a.id),
  accountId: a.id,
  username: a.username.toLowerCase(),
  host: (a.domain ?? '').toLowerCase(),
});

/** The facet items of a new account, for the transaction that creates it. */
export const facetPuts = (a: FacetSource): TransactItem[] => facetsOf(a).map((facet) => ({ Put: { Item: facetItem(facet, a) } }));

/** Which facet each account attribute decides: a write of one of them re-syncs that facet. */
const FACET_OF_ATTRIBUTE: Record<string, StateFacet> = {
  approved: 'pending',
  roleId: 'staff',
  admin: 'staff',
  silencedAt: 'silenced',
  suspendedAt: 'suspended',
  disabled: 'disabled',
  sensitizedAt: 'sensitized',
};

/** After a write of `changed` attributes: puts or removes the account in the facets they decide (idempotent). */
export async function syncFacets(after: FacetSource, changed: string[]): Promise<void> {
  const touched = new Set(changed.map((name) => FACET_OF_ATTRIBUTE[name]).filter((f): f is StateFacet => f !== undefined));
  if (touched.size === 0) return;
  const member = new Set(facetsOf(after));
  const puts = [...touched].filter((f) => member.has(f)).map((f) => facetItem(f, after));
  const deletes = [...touched].filter((f) => !member.has(f)).map((f) => keys.adminAccountFacet(f, after.id));
  await batchWrite(puts, deletes);
}

/** Removes an account from every facet (the account is deleted). */
export async function dropFacets(a: FacetSource): Promise<void> {
  const all: Facet[] = ['all', 'local', 'remote', ...STATE_FACETS, ...(a.signUpIp ? [ipFacet(a.signUpIp)] : [])];
  await batchWrite([], all.map((f) => keys.adminAccountFacet(f, a.id)));
}

const facetRow = z.object({ accountId: z.string(), SK: z.string() });

export type FacetFilter = { usernamePrefix?: string; host?: string; origin?: 'local' | 'remote' };

export type FacetRead = {
  /** Matching account ids, in the page's order (newest first). */
  ids: string[];
  /** The id of the last facet item examined (matching or not), where the next read goes on from; undefined at the end. */
  continueFrom?: string;
};

/**
 * One Query of a facet, `limit` items examined within `range` (ids exclusive as lib/paging's), the filters applied
 * by DynamoDB. Newest first, or upwards from `min_id` (answered newest first all the same).
 */
export async function readFacet(facet: Facet, range: IdRange, limit: number, filter: FacetFilter, startKey?: Item): Promise<FacetRead & { lastKey?: Item }> {
  const bounds = pageRange(range);
  if (!bounds) return { ids: [] };
  const names: Record<string, string> = {};
  const values: Item = { ':p': keys.adminAccountFacetPartition(facet) };
  let condition = 'PK = :p';
  if (bounds.lo && bounds.hi) Object.assign(values, { ':lo': bounds.lo, ':hi': bounds.hi }), (condition += ' AND SK BETWEEN :lo AND :hi');
  else if (bounds.lo) Object.assign(values, { ':lo': bounds.lo }), (condition += ' AND SK >= :lo');
  else if (bounds.hi) Object.assign(values, { ':hi': bounds.hi }), (condition += ' AND SK <= :hi');
  const filters: string[] = [];
  if (filter.usernamePrefix) (values[':u'] = filter.usernamePrefix.toLowerCase()), filters.push('begins_with(username, :u)');
  if (filter.host !== undefined) (names['#h'] = 'host'), (values[':h'] = filter.host.toLowerCase()), filters.push('#h = :h');
  if (filter.origin) (names['#h'] = 'host'), (values[':empty'] = ''), filters.push(filter.origin === 'local' ? '#h = :empty' : '#h <> :empty');
  const page = await query(
    {
      KeyConditionExpression: condition,
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
      ScanIndexForward: bounds.ascending,
      Limit: limit,
      ExclusiveStartKey: startKey,
    },
    facetRow,
  );
  const lastSk = typeof page.lastKey?.SK === 'string' ? page.lastKey.SK : undefined;
  return {
    ids: page.items.map((i) => i.accountId),
    continueFrom: lastSk ? String(BigInt(lastSk)) : undefined,
    lastKey: page.lastKey,
  };
}


/**
 * Puts every account read through `pages` into its facets (the operator's `accounts reindex`, for accounts made
 * before the facets existed): each page of ids is read with `read` and written in one chunked BatchWrite.
 * Answers how many accounts were indexed.
 */
export async function reindexFacets(pages: AsyncIterable<string[]>, read: (ids: string[]) => Promise<FacetSource[]>): Promise<number> {
  let count = 0;
  for await (const ids of pages) {
    const accounts = await read(ids);
    await batchWrite(accounts.flatMap((a) => facetsOf(a).map((facet) => facetItem(facet, a))));
    count += accounts.length;
  }
  return count;
}

/** The ids of the local accounts, a page at a time (their username claims, GSI1 `USERNAMES`). */
export async function* localAccountIdPages(pageSize = 100): AsyncIterable<string[]> {
  let start: Item | undefined;
  do {
    const page = await query(
      { IndexName: gsi1.INDEX, KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': gsi1.usernamesPartition }, Limit: pageSize, ExclusiveStartKey: start },
      z.object({ accountId: z.string() }),
    );
    if (page.items.length > 0) yield page.items.map((i) => i.accountId);
    start = page.lastKey;
  } while (start);
}
