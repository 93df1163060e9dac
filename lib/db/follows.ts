// Follow edges, stored once (PK the follower, SK the followed account) and read
// the other way through GSI1. The schema and the batch edge lookup are shared
// by visibility rules, relationships and the fan-out.
import { z } from 'zod';
import { gsi1, keys } from './keys';
import { batchGet, getItem } from './table';

export const followItem = z.object({
  id: z.string(),
  followerId: z.string(),
  followedId: z.string(),
  /** `reblogs: false` follows keep the followed account's reblogs out of the follower's home. */
  showReblogs: z.boolean().default(true),
  notify: z.boolean().default(false),
  createdAt: z.string(),
});
export type Follow = z.infer<typeof followItem>;

export const followRecord = (follow: Follow) => ({
  ...keys.follow(follow.followerId, follow.followedId),
  ...gsi1.follower(follow.followedId, follow.followerId),
  ...followItem.parse(follow),
});

export const followEdge = (followerId: string, followedId: string) => getItem(keys.follow(followerId, followedId), followItem);

/** Which of `followedIds` does `followerId` follow? One batch read. */
export async function followEdges(followerId: string, followedIds: string[]): Promise<Map<string, Follow>> {
  const found = await batchGet(followedIds.map((id) => keys.follow(followerId, id)), followItem);
  const byFollowed = new Map<string, Follow>();
  for (const edge of found.values()) byFollowed.set(edge.followedId, edge);
  return byFollowed;
}
