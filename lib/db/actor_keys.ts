// Actor key pairs: one RSA pair per local account (and one for the instance actor,
// under `INSTANCE`). The private key is stored sealed (AES-256-GCM under a key
// derived from SECRET_KEY_BASE, bound to its account) and opened here on read, so
// a table dump alone signs nothing and no caller ever handles the sealed form.
import { z } from 'zod';
import { generateRsaKeyPair, openSecret, sealSecret } from '../crypto';
import { secrets } from '../secrets';
import * as keys from './keys';
import { getItem, nowIso, putItem, type Item } from './table';

/** The instance actor's pseudo account id (keys.actorKeys knows it). */
export const INSTANCE_KEYS = 'INSTANCE';

export type ActorKeyPair = { publicKeyPem: string; privateKeyPem: string };

/** RSA-2048, as Mastodon's actors: every peer verifies it. */
export const ACTOR_KEY_BITS = 2048;

/** A new pair (RSA generation runs off the event loop: tens to hundreds of ms). */
export const newActorKeyPair = (): Promise<ActorKeyPair> => generateRsaKeyPair(ACTOR_KEY_BITS);

const storedKeys = z.object({
  publicKeyPem: z.string().min(1),
  sealedPrivateKey: z.string().min(1),
  createdAt: z.string(),
});

/** HKDF `info`: the purpose the sealing key is derived for, so it is never the key of anything else. */
const SEALING_PURPOSE = 'tootless actor key';
const sealing = (accountId: string) => ({ secret: secrets().secretKeyBase, info: SEALING_PURPOSE, binding: `actor-keys:${accountId}` });

/** A private key that no longer opens: SECRET_KEY_BASE changed, or the item was damaged or moved. */
export class SealedKeyUnreadable extends Error {
  constructor(readonly accountId: string) {
    super(`the private key of actor ${accountId} does not open with this SECRET_KEY_BASE`);
    this.name = 'SealedKeyUnreadable';
  }
}

/** The item for a new key pair, to write in another transaction (registration: createLocalAccount's `extra`). */
export function actorKeysRecord(accountId: string, pair: ActorKeyPair): Item & { PK: string; SK: string } {
  return {
    ...keys.actorKeys(accountId),
    publicKeyPem: pair.publicKeyPem,
    sealedPrivateKey: sealSecret(pair.privateKeyPem, sealing(accountId)),
    createdAt: nowIso(),
  };
}

/** The stored pair, opened; undefined when the account has none yet. Throws SealedKeyUnreadable when it cannot be opened. */
export async function actorKeysOf(accountId: string, opts: { consistent?: boolean } = {}): Promise<ActorKeyPair | undefined> {
  const stored = await getItem(keys.actorKeys(accountId), storedKeys, opts.consistent ?? false);
  if (!stored) return undefined;
  const privateKeyPem = openSecret(stored.sealedPrivateKey, sealing(accountId));
  if (privateKeyPem === undefined) throw new SealedKeyUnreadable(accountId);
  return { publicKeyPem: stored.publicKeyPem, privateKeyPem };
}

/**
 * Stores a pair unless the account already has one (`attribute_not_exists`): answers
 * false, writing nothing, when another request stored its pair first; the caller then
 * reads that one, so concurrent first needs end with one pair that all of them use.
 */
export async function storeActorKeysIfAbsent(accountId: string, pair: ActorKeyPair): Promise<boolean> {
  return putItem(actorKeysRecord(accountId, pair), { ifAbsent: true });
}
