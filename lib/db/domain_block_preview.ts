// What blocking a domain would sever (GET /api/v1/domain_blocks/preview, Mastodon 4.4), read from what is
// already stored: the follower inbox counts (lib/db/follower_inboxes.ts) for followers, and for follows the
// smaller of two sides, the caller's follow edges (`FOLLOWING#`) or the domain's known accounts
// (`DOMAIN_ACCOUNTS#`, lib/db/instance_domain_blocks.ts): no follow edge records the followed account's domain.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, query, type Item } from './table';

const inboxCount = z.object({ followers: z.number() });

/**
 * Remote followers of `accountId` whose inbox is on `host`: the counts of the follower inbox items under
 * `https://host/` and `http://host/` (a server's shared inbox, or the own inbox of an actor without one).
 * Two Queries of as many items as there are such inboxes, one for most servers.
 */
export async function followersBehindHost(accountId: string, host: string): Promise<number> {
  const pages = await Promise.all(
    [`https://${host}/`, `http://${host}/`].map((prefix) =>
      query(
        {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.followerInboxesPartition(accountId), ':prefix': prefix },
          ProjectionExpression: 'followers',
        },
        inboxCount,
      ),
    ),
  );
  // An inbox partition holds one item per inbox: a page (1 MB) is more inboxes than a host has.
  return pages.flatMap((p) => p.items).reduce((sum, item) => sum + Math.max(0, item.followers), 0);
}

/** A page of the ids `accountId` follows (edge keys only), with the key to continue from. */
export async function followedIdsPage(accountId: string, startKey?: Item): Promise<{ ids: string[]; lastKey?: Item }> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.followingPartition(accountId) },
      ProjectionExpression: 'followedId',
      ExclusiveStartKey: startKey,
    },
    z.object({ followedId: z.string() }),
  );
  return { ids: page.items.map((i) => i.followedId), lastKey: page.lastKey };
}

/** How many of `ids` `accountId` follows: BatchGets of the edges' keys (100 a call). */
export async function followedAmong(accountId: string, ids: string[]): Promise<number> {
  const found = await batchGet(ids.map((id) => keys.follow(accountId, id)), z.unknown(), 'PK, SK');
  return found.size;
}

/**
 * How many of `ids` are accounts on `domain`: BatchGets of the accounts (100 a call). Whole items: a BatchGet's
 * projection takes no attribute names, and `domain` is a reserved word (the read costs the same either way).
 */
export async function accountsOnDomain(ids: string[], domain: string): Promise<number> {
  const found = await batchGet(ids.map((id) => keys.account(id)), z.object({ domain: z.string().nullable().optional() }));
  return [...found.values()].filter((a) => a.domain?.toLowerCase() === domain).length;
}
