// Reads behind "familiar followers" (GET /api/v1/accounts/familiar_followers): the
// accounts someone follows, the followers of an account, and which of a set of
// accounts follow which targets, all on the follow edges (keys.follow, GSI1
// FOLLOWERS#), ids only: Query a partition or BatchGet exact keys, never a scan.
import { z } from 'zod';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { batchGet, queryAll } from './table';

const followedIdOnly = z.object({ followedId: z.string() });
const followerIdOnly = z.object({ followerId: z.string() });
const edgeEnds = z.object({ followerId: z.string(), followedId: z.string() });

/** Every account `accountId` follows, by id: one Query of its following partition (more pages only past ~1 MB of ids). */
export async function followedIdsOf(accountId: string): Promise<string[]> {
  const edges = await queryAll(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.followingPartition(accountId) },
      ProjectionExpression: 'followedId',
    },
    followedIdOnly,
  );
  return edges.map((e) => e.followedId);
}

/** Every follower of `accountId`, by id: one Query of GSI1 (more pages only past ~1 MB of ids). */
export async function followerIdsOf(accountId: string): Promise<string[]> {
  const edges = await queryAll(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': gsi1.followersPartition(accountId) },
      ProjectionExpression: 'followerId',
    },
    followerIdOnly,
  );
  return edges.map((e) => e.followerId);
}

/** Which of `followerIds` follow which of `targetIds`: one batch read of every pair's edge (100 keys per call). */
export async function followersAmong(followerIds: string[], targetIds: string[]): Promise<Map<string, Set<string>>> {
  const pairs = targetIds.flatMap((target) => followerIds.map((follower) => keys.follow(follower, target)));
  const found = await batchGet(pairs, edgeEnds, 'PK, SK, followerId, followedId');
  const byTarget = new Map<string, Set<string>>();
  for (const edge of found.values()) {
    const followers = byTarget.get(edge.followedId) ?? new Set<string>();
    followers.add(edge.followerId);
    byTarget.set(edge.followedId, followers);
  }
  return byTarget;
}
