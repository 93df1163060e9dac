// What the inbox knows about other servers' keys before it fetches one (lib/federation/key_gate.ts): the fetches
// that failed lately, per key and per host, and the few slots each host has for fetches outstanding at once. Small
// items removed by TTL; shared by every function instance, so a flood spread over many of them still fetches a
// failing key once per window and never holds more than the slots of one host.
import { z } from 'zod';
import * as keys from './keys';
import { batchGet, deleteItem, keyString, putItem, updateItem } from './table';

const failureItem = z.object({ until: z.number() });
const slotItem = z.object({ lease: z.string(), until: z.number() });

/** Keeps a spent item a little past its time, then TTL removes it. */
const ttlAfter = (untilMs: number) => Math.floor(untilMs / 1000) + 60;

/** Until when (epoch ms) a fetch of this key, and one of any key of this host, stay refused: each undefined unless it failed lately. One BatchGetItem. */
export async function keyFetchFailedUntil(keyId: string, host: string, now = Date.now()): Promise<{ key?: number; host?: number }> {
  const [keyKey, hostKey] = [keys.keyFetchFailure('key', keyId), keys.keyFetchFailure('host', host)];
  const found = await batchGet([keyKey, hostKey], failureItem);
  const standing = (k: keys.Key) => {
    const until = found.get(keyString(k))?.until;
    return until !== undefined && until > now ? until : undefined;
  };
  return { key: standing(keyKey), host: standing(hostKey) };
}

/** Remembers a failed fetch of this key (`key`) or of anything on this host (`host`) until `untilMs`. One PutItem. */
export async function recordKeyFetchFailure(scope: 'key' | 'host', subject: string, untilMs: number): Promise<void> {
  await putItem({ ...keys.keyFetchFailure(scope, subject), until: untilMs, expiresAt: ttlAfter(untilMs) });
}

/**
 * Takes one of `slots` fetch slots of `host` for `lease` until `untilMs` (a slot whose holder crashed frees itself
 * then): answers its number, or undefined when all are held. One conditional UpdateItem per slot tried.
 */
export async function takeKeyFetchSlot(host: string, slots: number, lease: string, untilMs: number, now = Date.now()): Promise<number | undefined> {
  for (let slot = 0; slot < slots; slot++) {
    const taken = await updateItem(
      {
        Key: keys.keyFetchSlot(host, slot),
        UpdateExpression: 'SET lease = :lease, #until = :until, expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(PK) OR #until < :now',
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
export async function releaseKeyFetchSlot(host: string, slot: number, lease: string): Promise<void> {
  await deleteItem(keys.keyFetchSlot(host, slot), slotItem, { ConditionExpression: 'lease = :lease', ExpressionAttributeValues: { ':lease': lease } });
}
