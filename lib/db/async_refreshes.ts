// Async refreshes (Mastodon 4.4's `Mastodon-Async-Refresh`, GET /api/v1_alpha/async_refreshes/:id): background work
// a client was told of and may poll until it is finished, with the number of results it brought so far. Today one
// kind: the replies of a remote status being fetched for its thread (lib/statuses/replies_refresh.ts). One item per
// refresh; it lives a day while running and an hour once finished, as Mastodon keeps them in Redis.
import { z } from 'zod';
import * as keys from './keys';
import { expiresIn, getItem, putItem, updateItem } from './table';

/** How long a refresh is kept while running (one whose worker died ends with it), and once finished. */
export const RUNNING_REFRESH_TTL_SECONDS = 24 * 3600;
export const FINISHED_REFRESH_TTL_SECONDS = 3600;

export const asyncRefreshItem = z.object({
  id: z.string(),
  status: z.enum(['running', 'finished']),
  resultCount: z.number().int().min(0).default(0),
  expiresAt: z.number(),
});
export type AsyncRefresh = z.infer<typeof asyncRefreshItem>;

/** Records a new running refresh. */
export async function createAsyncRefresh(id: string): Promise<AsyncRefresh> {
  const refresh = asyncRefreshItem.parse({ id, status: 'running', resultCount: 0, expiresAt: expiresIn(RUNNING_REFRESH_TTL_SECONDS) });
  await putItem({ ...keys.asyncRefresh(id), ...refresh });
  return refresh;
}

/** A refresh that is still kept; one past its TTL that DynamoDB has not yet removed counts as gone. */
export async function asyncRefreshById(id: string): Promise<AsyncRefresh | undefined> {
  const refresh = await getItem(keys.asyncRefresh(id), asyncRefreshItem);
  return refresh && refresh.expiresAt > Math.floor(Date.now() / 1000) ? refresh : undefined;
}

/** Counts `n` more results of a running refresh (a reply stored). */
export const countAsyncRefreshResults = (id: string, n: number) =>
  updateItem(
    {
      Key: keys.asyncRefresh(id),
      UpdateExpression: 'ADD resultCount :n',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':n': n },
    },
    asyncRefreshItem,
  );

/** Marks a refresh finished; it is kept an hour more for a client still polling. */
export const finishAsyncRefresh = (id: string) =>
  updateItem(
    {
      Key: keys.asyncRefresh(id),
      UpdateExpression: 'SET #status = :finished, expiresAt = :expires',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':finished': 'finished', ':expires': expiresIn(FINISHED_REFRESH_TTL_SECONDS) },
    },
    asyncRefreshItem,
  );
