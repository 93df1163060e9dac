// Strikes (Mastodon's AccountWarning) and their appeals. A strike is one item by id, with a pointer under its
// account (the account's strikes, newest first); an appeal lives on its strike, and a pending one also in the
// moderators' queue partition until it is decided.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, deleteItem, getItem, query, transact, updateItem } from './table';

export const strikeActions = ['none', 'disable', 'mark_statuses_as_sensitive', 'delete_statuses', 'sensitive', 'silence', 'suspend'] as const;
export type StrikeAction = (typeof strikeActions)[number];

export const appealItem = z.object({
  id: z.string(),
  text: z.string(),
  state: z.enum(['pending', 'approved', 'rejected']),
  createdAt: z.string(),
  decidedAt: z.string().nullable().default(null),
  decidedBy: z.string().nullable().default(null),
});
export type Appeal = z.infer<typeof appealItem>;

export const strikeItem = z.object({
  id: z.string(),
  /** The account warned. */
  accountId: z.string(),
  /** The moderator who acted. */
  moderatorId: z.string(),
  action: z.enum(strikeActions),
  text: z.string().default(''),
  reportId: z.string().nullable().default(null),
  statusIds: z.array(z.string()).default([]),
  createdAt: z.string(),
  /** Set when an approved appeal undid the action (Mastodon's overruled_at). */
  overruledAt: z.string().nullable().default(null),
  appeal: appealItem.nullable().default(null),
});
export type Strike = z.infer<typeof strikeItem>;

export async function putStrike(strike: Strike): Promise<void> {
  const parsed = strikeItem.parse(strike);
  await transact([
    { Put: { Item: { ...keys.strike(parsed.id), ...parsed }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...keys.accountStrike(parsed.accountId, parsed.id), strikeId: parsed.id } } },
  ]);
}

export const strikeById = (id: string) => getItem(keys.strike(id), strikeItem, true);

export async function strikesByIds(ids: string[]): Promise<Map<string, Strike>> {
  if (ids.length === 0) return new Map();
  const found = await batchGet(ids.map(keys.strike), strikeItem);
  return new Map([...found.values()].map((s) => [s.id, s]));
}

/** An account's latest strikes, newest first. */
export async function strikesOf(accountId: string, limit = 20): Promise<Strike[]> {
  const page = await query(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.accountStrikesPartition(accountId) }, ScanIndexForward: false, Limit: limit },
    z.object({ strikeId: z.string() }),
  );
  const found = await Promise.all(page.items.map((p) => strikeById(p.strikeId)));
  return found.filter((s): s is Strike => s !== undefined);
}

/** Records the appeal of a strike that has none yet; answers false when one exists already. */
export async function putAppeal(strikeId: string, appeal: Appeal): Promise<boolean> {
  const parsed = appealItem.parse(appeal);
  const result = await transact([
    {
      Update: {
        Key: keys.strike(strikeId),
        UpdateExpression: 'SET appeal = :a',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(appeal) OR appeal = :null)',
        ExpressionAttributeValues: { ':a': parsed, ':null': null },
      },
    },
    { Put: { Item: { ...keys.pendingAppeal(parsed.id), strikeId } } },
  ]);
  return result.ok;
}

/** Pending appeals' strikes, oldest first. */
export async function pendingAppealStrikes(limit = 100): Promise<Strike[]> {
  return (await pendingAppealsPage(limit)).strikes;
}

/**
 * A page of the pending appeals' strikes, oldest appeal first, starting after the appeal `after`; `last` is the
 * appeal the next page starts after when the queue may hold more. The strikes are one BatchGet; an appeal decided
 * meanwhile (its queue entry not yet removed) is left out.
 */
export async function pendingAppealsPage(limit: number, after?: string): Promise<{ strikes: Strike[]; last?: string }> {
  const page = await query(
    {
      KeyConditionExpression: after ? 'PK = :p AND SK > :a' : 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.pendingAppealsPartition(), ...(after ? { ':a': keys.pendingAppealsAfter(after) } : {}) },
      Limit: limit,
    },
    z.object({ SK: z.string(), strikeId: z.string() }),
  );
  const found = await strikesByIds(page.items.map((p) => p.strikeId));
  const strikes = page.items.flatMap((p) => {
    const s = found.get(p.strikeId);
    return s && s.appeal?.state === 'pending' ? [s] : [];
  });
  const lastItem = page.items.at(-1);
  return { strikes, ...(page.lastKey && lastItem ? { last: BigInt(lastItem.SK).toString() } : {}) };
}

/** Decides a pending appeal (only once); answers the strike afterwards, undefined when it was not pending. */
export async function decideAppeal(strike: Strike, state: 'approved' | 'rejected', moderatorId: string, at: string): Promise<Strike | undefined> {
  if (!strike.appeal) return undefined;
  const updated = await updateItem(
    {
      Key: keys.strike(strike.id),
      UpdateExpression: `SET appeal.#s = :s, appeal.decidedAt = :at, appeal.decidedBy = :by${state === 'approved' ? ', overruledAt = :at' : ''}`,
      ConditionExpression: 'appeal.#s = :pending',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':s': state, ':at': at, ':by': moderatorId, ':pending': 'pending' },
    },
    strikeItem,
  );
  if (updated) await deleteItem(keys.pendingAppeal(strike.appeal.id), z.object({ strikeId: z.string() }));
  return updated;
}

