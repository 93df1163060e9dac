// Featured tags of an account: one item per featured tag under the account's
// partition (by id), plus a name claim so a tag is featured at most once.
import { z } from 'zod';
import * as keys from './keys';
import { getItem, queryAll, transact } from './table';

export const MAX_FEATURED_TAGS = 10;

export const featuredTagItem = z.object({
  id: z.string(),
  accountId: z.string(),
  tag: z.string(),
  name: z.string(),
  createdAt: z.string(),
});
export type FeaturedTag = z.infer<typeof featuredTagItem>;

export const featuredTagsOf = (accountId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.featuredTagsPartition(accountId) } }, featuredTagItem);

export const featuredTagById = (accountId: string, id: string) => getItem(keys.featuredTag(accountId, id), featuredTagItem);

/** Writes the featured tag and claims its name; answers false if the account already features it. */
export async function putFeaturedTag(tag: FeaturedTag): Promise<boolean> {
  const result = await transact([
    { Put: { Item: { ...keys.featuredTagName(tag.accountId, tag.tag), id: tag.id }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.featuredTag(tag.accountId, tag.id), ...tag }, ConditionExpression: 'attribute_not_exists(PK)' } },
  ]);
  return result.ok;
}

const featuredTagNameItem = z.object({ id: z.string() });

/** The account's featured tag of `tag` (normalised), found through its name claim; undefined when not featured. */
export async function featuredTagOfTag(accountId: string, tag: string): Promise<FeaturedTag | undefined> {
  const claim = await getItem(keys.featuredTagName(accountId, tag), featuredTagNameItem, true);
  return claim ? featuredTagById(accountId, claim.id) : undefined;
}

/** Removes the featured tag and its name claim; answers false when it was not there. */
export async function deleteFeaturedTag(tag: FeaturedTag): Promise<boolean> {
  const result = await transact([
    { Delete: { Key: keys.featuredTag(tag.accountId, tag.id), ConditionExpression: 'attribute_exists(PK)' } },
    { Delete: { Key: keys.featuredTagName(tag.accountId, tag.tag) } },
  ]);
  return result.ok;
}
