// Remote accounts and statuses: the pointers that find them by their ActivityPub
// ids (and a remote account by `username@domain`). The items themselves are the
// ordinary account and status items, marked by `domain` / `uri`.
import { countNamed } from './daily_stats';
import { z } from 'zod';
import { accountById, accountItem, accountsByIds, accountUpdate, storedAccountAttributes, type Account } from './accounts';
import { dropFacets, facetPuts } from './admin_accounts';
import { deleteDomainAccount, domainAccountPut, recordPeer } from './instance_domain_blocks';
import * as keys from './keys';
import { batchGet, deleteItem, getItem, transact, updateItem, type Item } from './table';

const accountPointer = z.object({ accountId: z.string() });
const statusPointer = z.object({ statusId: z.string() });

/** A stored remote account by its actor URI. */
export async function remoteAccountByUri(uri: string): Promise<Account | undefined> {
  const ref = await getItem(keys.actorUri(uri), accountPointer);
  return ref ? accountById(ref.accountId) : undefined;
}

/** A stored remote account by `username@domain` (case-insensitive). */
export async function remoteAccountByAcct(username: string, domain: string): Promise<Account | undefined> {
  const ref = await getItem(keys.remoteAcct(username, domain), accountPointer);
  return ref ? accountById(ref.accountId) : undefined;
}

/**
 * Stores a new remote account with its two pointers in one transaction. Answers
 * false, writing nothing, when its URI (or its username@domain) is already taken:
 * another worker stored it first, and the caller reads that one.
 */
export async function createRemoteAccount(account: Account): Promise<boolean> {
  if (!account.domain || !account.uri) throw new Error('createRemoteAccount: a remote account needs domain and uri');
  const parsed = accountItem.parse(account);
  const result = await transact([
    { Put: { Item: { ...keys.actorUri(parsed.uri!), accountId: parsed.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.remoteAcct(parsed.username, parsed.domain!), accountId: parsed.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.account(parsed.id), ...storedAccountAttributes(parsed) }, ConditionExpression: 'attribute_not_exists(PK)' } },
    domainAccountPut(parsed.domain!, parsed.id),
    ...facetPuts(parsed),
  ]);
  // Outside the transaction: every new account of a domain writes this one item, and they must not conflict.
  if (result.ok) await Promise.all([recordPeer(parsed.domain!), countNamed('account', parsed.domain!.toLowerCase())]);
  return result.ok;
}

/** Replaces the profile attributes of a stored remote account (a refetched actor document, an Update(Person)). */
export async function updateRemoteAccount(id: string, changes: Partial<Omit<Account, 'id' | 'uri' | 'domain' | 'createdAt'>>): Promise<Account | undefined> {
  const update = accountUpdate(changes);
  if (!update) return accountById(id);
  return updateItem(
    {
      Key: keys.account(id),
      ...update,
      // Only a remote account: an actor document never rewrites a local one (whose domain is stored as NULL).
      ConditionExpression: 'attribute_exists(PK) AND attribute_type(#domain, :string)',
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#domain': 'domain' },
      ExpressionAttributeValues: { ...(update.ExpressionAttributeValues ?? {}), ':string': 'S' },
    },
    accountItem,
  );
}

/** The local id of a stored remote status, by its ActivityPub id. */
export async function remoteStatusIdByUri(uri: string): Promise<string | undefined> {
  return (await getItem(keys.statusUri(uri), statusPointer))?.statusId;
}

/** The pointer item of a remote status, to be written in the transaction that stores the status (`attribute_not_exists`). */
export const statusUriPointer = (uri: string, statusId: string): Item & { PK: string; SK: string } => ({ ...keys.statusUri(uri), statusId });

/**
 * Removes a remote account (a Delete of its actor), after its statuses and follows are gone: first its two
 * pointers, each only while it still names this account (a handle may have passed to another actor), so
 * nothing finds it any more; then the account item.
 */
export async function deleteRemoteAccount(account: Account): Promise<void> {
  if (!account.domain || !account.uri) throw new Error(`deleteRemoteAccount: ${account.id} is not a remote account`);
  const ownPointer = { ConditionExpression: 'accountId = :id', ExpressionAttributeValues: { ':id': account.id } };
  await deleteItem(keys.actorUri(account.uri), accountPointer, ownPointer);
  await deleteItem(keys.remoteAcct(account.username, account.domain), accountPointer, ownPointer);
  await deleteItem(keys.account(account.id), accountItem, { ConditionExpression: 'attribute_exists(#domain)', ExpressionAttributeNames: { '#domain': 'domain' } });
  await deleteDomainAccount(account.domain, account.id);
  await dropFacets(account);
}

/**
 * Stored remote accounts by `username@domain` (case-insensitive), keyed by the lower-cased handle:
 * two batch reads (the handle pointers, then their accounts), none when `handles` is empty.
 */
export async function remoteAccountsByAccts(handles: { username: string; domain: string }[]): Promise<Map<string, Account>> {
  if (handles.length === 0) return new Map();
  const pointers = await batchGet(handles.map((h) => keys.remoteAcct(h.username, h.domain)), accountPointer);
  const accounts = await accountsByIds([...new Set([...pointers.values()].map((p) => p.accountId))]);
  const out = new Map<string, Account>();
  for (const account of accounts.values()) if (account.domain) out.set(`${account.username}@${account.domain}`.toLowerCase(), account);
  return out;
}

/**
 * Forgets a remote account's avatar or header whose URL the address guard refused when it was fetched (a name
 * that resolves inside, a redirect there): the default image is shown instead, never that URL. Only while the
 * account still names `remoteUrl` for it and has no copy; the next actor document that names it asks again.
 */
export async function forgetRefusedProfileImage(id: string, image: 'avatar' | 'header', remoteUrl: string): Promise<void> {
  await updateItem(
    {
      Key: keys.account(id),
      UpdateExpression: 'SET #url = :none',
      ConditionExpression: 'attribute_type(#domain, :string) AND #url = :url AND (attribute_not_exists(#key) OR #key = :none)',
      ExpressionAttributeNames: { '#key': `${image}Key`, '#url': `${image}RemoteUrl`, '#domain': 'domain' },
      ExpressionAttributeValues: { ':url': remoteUrl, ':string': 'S', ':none': null },
    },
    accountItem,
  );
}

/**
 * Records the copy of a remote account's avatar or header (lib/federation/remote_media.ts), once: only while the
 * account is still a remote one, still names `remoteUrl` for that image (a newer actor document may have changed
 * it), and has no copy of it yet. False when it did not apply: the caller removes the object it stored.
 */
export async function setRemoteProfileImage(id: string, image: 'avatar' | 'header', remoteUrl: string, key: string): Promise<boolean> {
  const updated = await updateItem(
    {
      Key: keys.account(id),
      UpdateExpression: 'SET #key = :key',
      ConditionExpression: 'attribute_type(#domain, :string) AND #url = :url AND (attribute_not_exists(#key) OR #key = :none)',
      ExpressionAttributeNames: { '#key': `${image}Key`, '#url': `${image}RemoteUrl`, '#domain': 'domain' },
      ExpressionAttributeValues: { ':key': key, ':url': remoteUrl, ':string': 'S', ':none': null },
    },
    accountItem,
  );
  return updated !== undefined;
}
