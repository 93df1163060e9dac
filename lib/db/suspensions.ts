// What a suspension still has to do after the request that made it (lib/moderation/suspension.ts), kept where the
// sweeper finds it (lib/moderation/purge.ts): one partition, SUSPENSION_WORK, holding
// - `GRAPH#<account>`: the follows to sever now (mode `sever`) or to restore after an unsuspension (`restore`);
// - `PURGE#<due>#<account>`: the purge of the account's data, due SUSPENSION_RETENTION_DAYS after the suspension.
// Each item names the suspension it belongs to (`suspendedAt`) and the step it has reached, so a run that stops
// anywhere is resumed by the next; a lease (`leaseUntil`, `leaseId`) keeps two overlapping sweeper runs off one item.
// Severed follows are kept under `SEVERED#<account>` until restored or purged.
import { z } from 'zod';
import * as keys from './keys';
import type { Key } from './keys';
import { followItem, type Follow } from './follows';
import { batchWrite, deleteItem, putItem, query, transact, updateItem } from './table';

export const suspensionWorkItem = z.object({
  accountId: z.string(),
  kind: z.enum(['graph', 'purge']),
  /** `graph` only: sever the follows, or put them back. */
  mode: z.enum(['sever', 'restore', 'purge']),
  /** The suspension this work belongs to: a suspension lifted (or replaced) meanwhile makes it stale. */
  suspendedAt: z.string(),
  /** `purge` only: when it is due (also in the sort key). */
  dueAt: z.string().optional(),
  /** The inboxes of the servers told of the suspension: the Update after an unsuspension and the Delete after the purge go there too. */
  inboxes: z.array(z.string()).default([]),
  /** How far it got: the index of the step under way (lib/moderation/purge.ts names them). */
  step: z.number().int().default(0),
  /** The step's position, when it reads a partition it does not empty (an account id). */
  cursor: z.string().nullable().default(null),
  leaseUntil: z.number().optional(),
  leaseId: z.string().optional(),
});
export type SuspensionWork = z.infer<typeof suspensionWorkItem>;

export const workKey = (work: Pick<SuspensionWork, 'kind' | 'accountId' | 'dueAt'>): Key =>
  work.kind === 'graph' ? keys.suspensionGraphWork(work.accountId) : keys.suspensionPurgeWork(work.dueAt!, work.accountId);

const record = (work: SuspensionWork) => ({ ...workKey(work), ...suspensionWorkItem.parse(work) });

/**
 * A suspension starts: its follows are to be severed now (replacing a restore still under way) and its data purged
 * at `purgeAt`, both written in one transaction.
 */
export async function scheduleSuspensionWork(accountId: string, suspendedAt: string, purgeAt: string, inboxes: string[], sever: boolean): Promise<void> {
  const base = { accountId, suspendedAt, inboxes, step: 0, cursor: null };
  await transact([
    ...(sever ? [{ Put: { Item: record({ ...base, kind: 'graph', mode: 'sever' }) } }] : []),
    { Put: { Item: record({ ...base, kind: 'purge', mode: 'purge', dueAt: purgeAt }) } },
  ]);
}

/** The purge item of a suspension (read when lifting it: the servers it told). */
export async function purgeWorkOf(accountId: string, purgeAt: string): Promise<SuspensionWork | undefined> {
  const { items } = await query(
    { KeyConditionExpression: 'PK = :pk AND SK = :sk', ExpressionAttributeValues: { ':pk': keys.SUSPENSION_WORK, ':sk': keys.suspensionPurgeWork(purgeAt, accountId).SK }, ConsistentRead: true },
    suspensionWorkItem,
  );
  return items[0];
}

/**
 * The purge of a suspension brought forward to `dueAt` (a moderator asked for the data to be deleted now): the item
 * moves to its new sort key with everything it holds, in one transaction conditioned on the old one being there.
 * False when there is no such purge (already done, or the suspension lifted).
 */
export async function advancePurge(accountId: string, purgeAt: string, dueAt: string): Promise<boolean> {
  const work = await purgeWorkOf(accountId, purgeAt);
  if (!work) return false;
  if (work.dueAt !== undefined && work.dueAt <= dueAt) return true;
  const result = await transact([
    { Delete: { Key: keys.suspensionPurgeWork(purgeAt, accountId), ConditionExpression: 'attribute_exists(PK)' } },
    { Put: { Item: record({ ...work, dueAt }) } },
  ]);
  return result.ok;
}

/**
 * A suspension is lifted: its purge is called off, and the follows it severed are to be put back (replacing a
 * severing still under way: what it severed so far is in the archive, what it had not reached was never removed).
 */
export async function scheduleUnsuspensionWork(accountId: string, suspendedAt: string, purgeAt: string, inboxes: string[], restore: boolean): Promise<void> {
  await transact([
    { Delete: { Key: keys.suspensionPurgeWork(purgeAt, accountId) } },
    restore
      ? { Put: { Item: record({ accountId, suspendedAt, inboxes, kind: 'graph', mode: 'restore', step: 0, cursor: null }) } }
      : { Delete: { Key: keys.suspensionGraphWork(accountId) } },
  ]);
}

/** Work due now: every graph item and the purges due by `nowIso`, oldest first, at most `limit`. */
export async function dueSuspensionWork(nowIso: string, limit: number): Promise<SuspensionWork[]> {
  const [graph, purge] = await Promise.all([
    query(
      { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :g)', ExpressionAttributeValues: { ':pk': keys.SUSPENSION_WORK, ':g': 'GRAPH#' }, Limit: limit, ConsistentRead: true },
      suspensionWorkItem,
    ),
    query(
      {
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.SUSPENSION_WORK, ':from': 'PURGE#', ':to': `PURGE#${nowIso}~` },
        Limit: limit,
        ConsistentRead: true,
      },
      suspensionWorkItem,
    ),
  ]);
  return [...graph.items, ...purge.items].slice(0, limit);
}

/** Takes `work` for `ms` unless another run holds it; answers the lease id, or undefined. */
export async function leaseSuspensionWork(work: SuspensionWork, leaseId: string, now: number, ms: number): Promise<boolean> {
  const taken = await updateItem(
    {
      Key: workKey(work),
      UpdateExpression: 'SET leaseUntil = :until, leaseId = :id',
      ExpressionAttributeNames: { '#mode': 'mode' },
      ConditionExpression: 'attribute_exists(PK) AND #mode = :mode AND suspendedAt = :at AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
      ExpressionAttributeValues: { ':until': now + ms, ':id': leaseId, ':mode': work.mode, ':at': work.suspendedAt, ':now': now },
    },
    suspensionWorkItem,
  );
  return taken !== undefined;
}

/** Records how far the leased `work` got (only while the lease and the mode hold); false: someone else has it now. */
export async function advanceSuspensionWork(work: SuspensionWork, leaseId: string, step: number, cursor: string | null): Promise<boolean> {
  const moved = await updateItem(
    {
      Key: workKey(work),
      UpdateExpression: 'SET #step = :step, #cursor = :cursor',
      ConditionExpression: 'leaseId = :id AND #mode = :mode AND suspendedAt = :at',
      ExpressionAttributeNames: { '#cursor': 'cursor', '#step': 'step', '#mode': 'mode' },
      ExpressionAttributeValues: { ':step': step, ':cursor': cursor, ':id': leaseId, ':mode': work.mode, ':at': work.suspendedAt },
    },
    suspensionWorkItem,
  );
  return moved !== undefined;
}

/** Gives the lease back so the next run continues at once. */
export async function releaseSuspensionWork(work: SuspensionWork, leaseId: string): Promise<void> {
  await updateItem(
    {
      Key: workKey(work),
      UpdateExpression: 'REMOVE leaseUntil, leaseId',
      ConditionExpression: 'leaseId = :id',
      ExpressionAttributeValues: { ':id': leaseId },
    },
    suspensionWorkItem,
  );
}

/** The work is done (only this lease's: a newer item of the same key stays). */
export async function finishSuspensionWork(work: SuspensionWork, leaseId: string): Promise<void> {
  await deleteItem(workKey(work), suspensionWorkItem, { ConditionExpression: 'leaseId = :id AND #mode = :mode AND suspendedAt = :at', ExpressionAttributeNames: { '#mode': 'mode' }, ExpressionAttributeValues: { ':id': leaseId, ':mode': work.mode, ':at': work.suspendedAt } });
}

// ---- severed follows ----

export const severedFollowItem = followItem.extend({ direction: z.enum(['follower', 'following']) });
export type SeveredFollow = z.infer<typeof severedFollowItem>;

/** Keeps a follow edge of `accountId` before it is deleted (idempotent: the same edge again overwrites it). */
export const keepSeveredFollow = (accountId: string, direction: 'follower' | 'following', edge: Follow) =>
  putItem({ ...keys.severedFollow(accountId, direction, direction === 'follower' ? edge.followerId : edge.followedId), ...severedFollowItem.parse({ ...edge, direction }) });

/** A page of the follows kept for `accountId` (each one is removed once restored or purged, so the next page starts at the top). */
export async function severedFollowsPage(accountId: string, limit: number): Promise<SeveredFollow[]> {
  const { items } = await query(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.severedFollowsPartition(accountId) }, Limit: limit, ConsistentRead: true },
    severedFollowItem,
  );
  return items;
}

export const forgetSeveredFollows = (accountId: string, follows: SeveredFollow[]) =>
  batchWrite([], follows.map((f) => keys.severedFollow(accountId, f.direction, f.direction === 'follower' ? f.followerId : f.followedId)));

// ---- purge ----

/** Media items of purged statuses (their files are deleted by the caller). */
export const deleteMediaItemsOf = (mediaIds: string[]) => batchWrite([], mediaIds.map(keys.media));

/** The purged account's login goes: no password to sign in with, and disabled (its e-mail stays reserved, as Mastodon's reserve_email). */
export const clearLogin = (accountId: string) =>
  updateItem(
    { Key: keys.account(accountId), UpdateExpression: 'SET disabled = :t REMOVE passwordHash', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':t': true } },
    z.object({ id: z.string() }),
  );
