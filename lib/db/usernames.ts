// Prefix search over local usernames: the username claim items carry GSI1
// attributes (one `USERNAMES` partition, lower-cased usernames as sort keys),
// so a search is a begins_with Query, never a scan. Display names are not indexed.
import { z } from 'zod';
import * as gsi1 from './gsi1';
import { query, type Item } from './table';

const usernameEntry = z.object({ accountId: z.string(), GSI1SK: z.string() });
export type UsernameEntry = z.infer<typeof usernameEntry>;

/** Usernames starting with `prefix` (lower-cased), in alphabetical order; `lastKey` continues. */
export async function usernamesByPrefix(prefix: string, limit: number, startKey?: Item): Promise<{ items: UsernameEntry[]; lastKey?: Item }> {
  return query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p AND begins_with(GSI1SK, :q)',
      ExpressionAttributeValues: { ':p': gsi1.usernamesPartition, ':q': prefix.toLowerCase() },
      Limit: limit,
      ExclusiveStartKey: startKey,
    },
    usernameEntry,
  );
}
