// Follow suggestions the user dismissed (lib/suggestions): one item per
// (user, dismissed account), kept for good, read by exact key.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, nowIso, putItem } from './table';

const dismissedItem = z.object({ dismissedId: z.string() });

/** Which of `accountIds` `userId` dismissed: one batch read (100 keys per call). */
export async function dismissedAmong(userId: string, accountIds: string[]): Promise<Set<string>> {
  const found = await batchGet(accountIds.map((id) => keys.suggestionDismissed(userId, id)), dismissedItem);
  return new Set([...found.values()].map((d) => d.dismissedId));
}

/** Records that `userId` dismissed `accountId` (again: the same item, rewritten). */
export async function putDismissedSuggestion(userId: string, accountId: string): Promise<void> {
  await putItem({ ...keys.suggestionDismissed(userId, accountId), dismissedId: accountId, createdAt: nowIso() });
}
