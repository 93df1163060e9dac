// How many deliveries a remote server has in flight (lib/federation/deliver.ts decides how many it may have): a few
// slot items beside its health item, in the partition of ./keys.ts deliveryServerPartition, so that one Query tells
// a worker both. A slot is held by a lease until its `until` and given back when the POST ends; a worker that died
// holding one frees it by that time. Items removed by TTL once spent.
import { z } from 'zod';
import * as keys from './keys';
import { serverHealthItem, type ServerHealth } from './server_health';
import { deleteItem, query, updateItem } from './table';

const slotItem = z.object({ SK: z.string(), lease: z.string(), since: z.number(), until: z.number() });
const partitionItem = z.object({ SK: z.string() }).passthrough();

/** Keeps a spent slot a little past its time, then TTL removes it. */
const ttlAfter = (untilMs: number) => Math.floor(untilMs / 1000) + 60;

export type DeliveryServerState = {
  health: ServerHealth | undefined;
  /** The slots held at `now` (a lease not yet run out): number, when taken and until when (epoch ms). */
  held: { slot: number; since: number; until: number }[];
};

/** A server's health and the slots held at `now`: one Query of its partition (a handful of small items). */
export async function deliveryServerState(host: string, now = Date.now()): Promise<DeliveryServerState> {
  const { items } = await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.deliveryServerPartition(host) } }, partitionItem);
  let health: ServerHealth | undefined;
  const held: DeliveryServerState['held'] = [];
  for (const item of items) {
    if (item.SK === 'HEALTH') health = serverHealthItem.parse(item);
    else if (item.SK.startsWith('SLOT#')) {
      const slot = slotItem.parse(item);
      if (slot.until > now) held.push({ slot: Number(slot.SK.slice('SLOT#'.length)), since: slot.since, until: slot.until });
    }
  }
  return { health, held };
}

/**
 * Takes one of `candidates` (slot numbers seen free) for `lease` until `untilMs`: answers its number, or undefined
 * when others took them all first. One conditional UpdateItem per slot tried.
 */
export async function takeDeliverySlot(host: string, candidates: number[], lease: string, untilMs: number, now = Date.now()): Promise<number | undefined> {
  for (const slot of candidates) {
    const taken = await updateItem(
      {
        Key: keys.deliverySlot(host, slot),
        UpdateExpression: 'SET lease = :lease, since = :now, #until = :until, expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(PK) OR #until <= :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':lease': lease, ':until': untilMs, ':expires': ttlAfter(untilMs), ':now': now },
      },
      slotItem,
    );
    if (taken) return slot;
  }
  return undefined;
}

/** Gives a slot back, if `lease` still holds it. One conditional DeleteItem. */
export async function releaseDeliverySlot(host: string, slot: number, lease: string): Promise<void> {
  await deleteItem(keys.deliverySlot(host, slot), slotItem, { ConditionExpression: 'lease = :lease', ExpressionAttributeValues: { ':lease': lease } });
}
