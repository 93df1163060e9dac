// Followed hashtags (Mastodon's TagFollow), stored twice and written together in one transaction:
// - `TAG_FOLLOWS#<account>` / `<follow id>`: the account's followed tags, paged by the follow's own id
//   as GET /api/v1/followed_tags pages them;
// - `TAG_FOLLOWERS#<tag>` / `<account>`: the tag's followers, one partition per tag, which the fan-out
//   reads a page at a time; its exact key also answers "does this account follow this tag" and keeps
//   one follow per (account, tag) (`attribute_not_exists`).
// Following also gives the tag its display name when it has none yet (`TAGINFO#<tag>`, lib/db/tags.ts),
// as Mastodon creates the Tag record with the spelling of whoever followed it first.
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { batchGet, getItem, keyString, query, transact, type TransactItem } from './table';

export const tagFollowItem = z.object({
  id: z.string(),
  accountId: z.string(),
  /** Normalised (lower-case, NFKC) tag, without `#`. */
  tag: z.string(),
  /** The tag's display name when it was followed. */
  name: z.string(),
  createdAt: z.string(),
});
export type TagFollow = z.infer<typeof tagFollowItem>;

const tagFollowerItem = z.object({ accountId: z.string(), followId: z.string() });
const tagInfoItem = z.object({ name: z.string() });

/** The two items of a follow: the account's list entry and the tag's follower entry. */
export const tagFollowRecords = (follow: TagFollow) => [
  { ...keys.tagFollow(follow.accountId, follow.id), ...tagFollowItem.parse(follow) },
  { ...keys.tagFollower(follow.tag, follow.accountId), accountId: follow.accountId, followId: follow.id },
];

/** Writes a follow; `already-following` when the account follows the tag already (the existing follow stands). */
export async function putTagFollow(follow: TagFollow): Promise<{ ok: true } | { failed: 'already-following' }> {
  const [entry, follower] = tagFollowRecords(follow);
  const items: TransactItem[] = [
    { Put: { Item: follower, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: entry, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Update: {
        Key: keys.tag(follow.tag),
        UpdateExpression: 'SET #name = if_not_exists(#name, :name)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': follow.name },
      },
    },
  ];
  const result = await transact(items);
  return result.ok ? { ok: true } : { failed: 'already-following' };
}

/**
 * Removes the account's follow of `tag`. `not-following` when there was none; `changed-meanwhile` when the
 * follow read was replaced (unfollowed and followed again) before the delete, so nothing was removed.
 */
export async function deleteTagFollow(accountId: string, tag: string): Promise<{ ok: true } | { failed: 'not-following' | 'changed-meanwhile' }> {
  const follower = await getItem(keys.tagFollower(tag, accountId), tagFollowerItem, true);
  if (!follower) return { failed: 'not-following' };
  const result = await transact([
    {
      Delete: {
        Key: keys.tagFollower(tag, accountId),
        ConditionExpression: 'followId = :id',
        ExpressionAttributeValues: { ':id': follower.followId },
      },
    },
    { Delete: { Key: keys.tagFollow(accountId, follower.followId) } },
  ]);
  return result.ok ? { ok: true } : { failed: 'changed-meanwhile' };
}

/** A page of the account's followed tags, newest follow first (one Query). */
export const followedTagsPage = (accountId: string, page: Page): Promise<TagFollow[]> =>
  queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.tagFollowsPartition(accountId) }, page, tagFollowItem);

/**
 * What the Tag entity needs besides its history, in one batch read: the tag's display name when it has
 * been used or followed here, and whether `viewerId` follows and features it.
 */
export async function tagFacts(tag: string, viewerId: string | undefined): Promise<{ name?: string; following: boolean; featuring: boolean }> {
  const info = keys.tag(tag);
  const follower = viewerId === undefined ? undefined : keys.tagFollower(tag, viewerId);
  // The featured tag's name claim (lib/db/featured_tags.ts) answers `featuring` in the same batch.
  const featured = viewerId === undefined ? undefined : keys.featuredTagName(viewerId, tag);
  const found = await batchGet<unknown>(follower && featured ? [info, follower, featured] : [info], z.unknown());
  const name = tagInfoItem.safeParse(found.get(keyString(info)));
  return {
    name: name.success ? name.data.name : undefined,
    following: follower !== undefined && found.has(keyString(follower)),
    featuring: featured !== undefined && found.has(keyString(featured)),
  };
}

/**
 * A page of `tag`'s followers after follower `after` (from the first without it), and the follower the next
 * page starts after when there may be one: the account id is the whole cursor, as in the fan-out's follower walk.
 */
export async function tagFollowersAfter(tag: string, after: string | undefined, pageSize: number): Promise<{ accountIds: string[]; next?: string }> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.tagFollowersPartition(tag) },
      ProjectionExpression: 'accountId',
      Limit: pageSize,
      ExclusiveStartKey: after === undefined ? undefined : keys.tagFollower(tag, after),
    },
    z.object({ accountId: z.string() }),
  );
  const last = page.items.at(-1);
  return { accountIds: page.items.map((item) => item.accountId), next: page.lastKey && last ? last.accountId : undefined };
}
