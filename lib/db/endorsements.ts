// Endorsements (Mastodon's AccountPin: accounts a user features on its profile). One item per
// (endorser, account) in the endorser's partition, sorted by the endorsed account's id: read by exact
// key in the same batch as the rest of a Relationship (follows.graphStates), and paged by account id
// as Mastodon pages GET /api/v1/endorsements. An endorsement needs a follow: endorsing checks the edge
// in the same transaction, and unfollowing deletes the endorsement in the unfollow's transaction.
import { z } from 'zod';
import type { Page } from '../paging';
import { accountItem, type Account } from './accounts';
import { followItem } from './follows';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { batchGet, deleteItem, keyString, nowIso, parseItem, transact } from './table';

export const endorsementItem = z.object({
  accountId: z.string(),
  targetAccountId: z.string(),
  createdAt: z.string(),
});
export type Endorsement = z.infer<typeof endorsementItem>;

/**
 * Endorses `targetId` for `accountId`, only while `accountId` follows it (the edge is checked in the same
 * transaction). Endorsing again rewrites the same item. `not-following` when there is no edge: nothing written.
 */
export async function putEndorsement(accountId: string, targetId: string): Promise<'endorsed' | 'not-following'> {
  const item = endorsementItem.parse({ accountId, targetAccountId: targetId, createdAt: nowIso() });
  const result = await transact([
    { Put: { Item: { ...keys.endorsement(accountId, targetId), ...item } } },
    { ConditionCheck: { Key: keys.follow(accountId, targetId), ConditionExpression: 'attribute_exists(PK)' } },
  ]);
  return result.ok ? 'endorsed' : 'not-following';
}

/** Removes the endorsement, if there was one. */
export async function deleteEndorsement(accountId: string, targetId: string): Promise<void> {
  await deleteItem(keys.endorsement(accountId, targetId), endorsementItem);
}

const anyItem = z.record(z.unknown());

export type EndorsedPage = {
  /** The endorsed accounts still followed, in page order. */
  accounts: Account[];
  /** The ids the Link header points from: the page as read. */
  newest?: string;
  oldest?: string;
};

/**
 * A page of the accounts `accountId` endorses, highest account id first: one Query of the endorsements, then one
 * batch read of their accounts and of `accountId`'s follow edges to them. An endorsement whose edge is gone (a
 * block or a domain block removed the follow in a transaction of its own) is not shown.
 */
export async function endorsedPage(accountId: string, page: Page): Promise<EndorsedPage> {
  const endorsements = await queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.endorsementsPartition(accountId) }, page, endorsementItem);
  const ids = endorsements.map((e) => e.targetAccountId);
  if (ids.length === 0) return { accounts: [] };
  const found = await batchGet(ids.flatMap((id) => [keys.account(id), keys.follow(accountId, id)]), anyItem);
  const accounts = ids.flatMap((id) => {
    const account = parseItem(accountItem, found.get(keyString(keys.account(id))));
    const edge = parseItem(followItem, found.get(keyString(keys.follow(accountId, id))));
    return account && edge ? [account] : [];
  });
  return { accounts, newest: ids[0], oldest: ids.at(-1) };
}
