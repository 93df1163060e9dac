// The whole pinned set of an account, replaced at once: a remote account's pins
// are what its server's `featured` collection lists (lib/federation/featured.ts),
// not pin/unpin actions, so each fetch of that collection replaces the set. The
// items are those pinning writes (lib/db/interactions.ts addPin / removePin), so
// GET /api/v1/accounts/:id/statuses?pinned=true reads them as it reads ours.
import { z } from 'zod';
import { addPin, removePin } from './interactions';
import * as keys from './keys';
import { queryAll } from './table';

const pinEntry = z.object({ statusId: z.string() });

/** The ids of the statuses the account has pinned (a handful at most). */
export async function pinnedIdsOf(accountId: string): Promise<string[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.accountPinsPartition(accountId) } },
    pinEntry,
  );
  return items.map((item) => item.statusId);
}

/**
 * Makes `statusIds` the account's pinned set: unpins what is no longer in it, pins what is new.
 * Each pin and unpin is its own conditional transaction, so a repeat (a redelivery, two fetches
 * at once) changes nothing more; a status deleted meanwhile is not pinned.
 */
export async function replacePins(accountId: string, statusIds: string[]): Promise<void> {
  const wanted = new Set(statusIds);
  const current = await pinnedIdsOf(accountId);
  for (const id of current) if (!wanted.has(id)) await removePin(accountId, id);
  for (const id of wanted) if (!current.includes(id)) await addPin(accountId, id);
}
