// Actor key pairs: an RSA-2048 pair per local account (made at registration, or on
// first need for older accounts) and one for the instance actor; the private key
// is stored encrypted with a key derived from SECRET_KEY_BASE (lib/db/actor_keys.ts).
// Opened pairs are kept in memory for the container's life: a pair never changes
// once stored, and every delivery and signed fetch needs one.
import type { Account } from '../db/accounts';
import { actorKeysOf, INSTANCE_KEYS, newActorKeyPair, storeActorKeysIfAbsent, type ActorKeyPair } from '../db/actor_keys';
import type { Signer } from './signatures';
import { apUrls } from './urls';

/**
 * The stored pair, or a new one stored now. Two first needs at once (two containers,
 * or two requests here) both generate, one conditional put wins, and the loser reads
 * the winner's pair back (consistently), so both sign with the same key.
 */
export async function loadOrCreateKeyPair(accountId: string): Promise<ActorKeyPair> {
  const stored = await actorKeysOf(accountId);
  if (stored) return stored;
  const fresh = await newActorKeyPair();
  if (await storeActorKeysIfAbsent(accountId, fresh)) return fresh;
  const winner = await actorKeysOf(accountId, { consistent: true });
  if (!winner) throw new Error(`actor keys of ${accountId}: the conditional put failed but no pair is stored`);
  return winner;
}

/** Pairs (or their loading) by account id; a failed load is forgotten so the next need tries again. */
const cache = new Map<string, Promise<ActorKeyPair>>();

function keyPairOf(accountId: string): Promise<ActorKeyPair> {
  let pending = cache.get(accountId);
  if (!pending) {
    pending = loadOrCreateKeyPair(accountId);
    cache.set(accountId, pending);
    pending.catch(() => cache.delete(accountId));
  }
  return pending;
}

/** Tests: forget the opened pairs, as a new container would. */
export const forgetCachedKeyPairs = (): void => cache.clear();

/** The account's public key (PEM), creating the pair on first need. */
export async function publicKeyOf(account: Pick<Account, 'id'>): Promise<string> {
  return (await keyPairOf(account.id)).publicKeyPem;
}

/** The key a local account signs with (keyId `<actor>#main-key`), creating the pair on first need. */
export async function signerFor(account: Pick<Account, 'id' | 'username'>): Promise<Signer> {
  const pair = await keyPairOf(account.id);
  return { keyId: apUrls.keyId(account.username), privateKeyPem: pair.privateKeyPem };
}

/** The instance actor's public key and signer (keyId `<base>/actor#main-key`). */
export async function instancePublicKey(): Promise<string> {
  return (await keyPairOf(INSTANCE_KEYS)).publicKeyPem;
}
export async function instanceSigner(): Promise<Signer> {
  const pair = await keyPairOf(INSTANCE_KEYS);
  return { keyId: apUrls.instanceKeyId(), privateKeyPem: pair.privateKeyPem };
}
