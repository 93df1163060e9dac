// The key of an actor, read from its document, and the key lookup of the endpoints that serve
// our documents (GET of an actor, a status, a collection). Those check a signature only to know
// who asks: a follower or a mentioned actor sees a followers-only status, and with authorized
// fetch on, only a signed request is served. Such a signer is either already stored (a follower
// or a mentioned actor always is) or nobody we keep anything about, so this lookup stores no new
// account: it reads the stored key, or fetches the key from its server and keeps it in memory.
// A stored account whose key changed gets the new key (and nothing else) written.
//
// So a document endpoint never parses, sanitises or stores a profile: its bundle carries no HTML
// sanitiser (./actor_store.ts stores actors; the inbox's signature check uses it).
import { createPublicKey } from 'node:crypto';
import type { Account } from '../db/accounts';
import { remoteAccountByUri, updateRemoteAccount } from '../db/remote';
import { knownInRequest, oncePerRequest } from '../request_scope';
import { log } from '../log';
import { FetchFailed, fetchObject } from './fetch';
import type { KeyLookup } from './signatures';
import { isLocalUrl } from './urls';
import { asArray, httpUrl, idOf, objectOf, typeOf, type ApDocument } from './vocab';

export const ACTOR_TYPES = ['Person', 'Service', 'Application', 'Group', 'Organization'] as const;

/** A refetch asked for (a signature that failed: a rotated key?) is not repeated sooner than this. */
export const REFETCH_AT_MOST_EVERY_MS = 60_000;

export const isActorType = (doc: ApDocument): boolean => (ACTOR_TYPES as readonly string[]).includes(typeOf(doc) ?? '');

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};
export const sameOrigin = (a: string, b: string): boolean => originOf(a) !== undefined && originOf(a) === originOf(b);

/** A PEM that node can read as a public key. */
/**
 * Longer is no public key: an RSA-16384 SPKI PEM is under 3 KB. OpenSSL reads a key with any amount of text around
 * it, so without this bound an actor could store hundreds of KB of junk with its key (past DynamoDB's item limit).
 */
export const MAX_PUBLIC_KEY_PEM = 16_384;

const readablePem = (pem: unknown): pem is string => {
  if (typeof pem !== 'string' || pem.length > MAX_PUBLIC_KEY_PEM || !pem.includes('-----BEGIN')) return false;
  try {
    createPublicKey(pem);
    return true;
  } catch {
    return false;
  }
};

export type ActorKey = { publicKeyId: string; publicKeyPem: string };

/**
 * The actor's key: among `publicKey` (one object or several), the one named `keyId` if given,
 * else the first; it must be the actor's own (`owner`, when given, is the actor; its id on the
 * actor's origin) and readable.
 */
export function keyOf(doc: ApDocument, actorId: string, keyId?: string): ActorKey | undefined {
  const found = asArray(doc.publicKey).flatMap((k) => {
    const key = objectOf(k);
    if (!key || typeof key.id !== 'string' || !sameOrigin(key.id, actorId)) return [];
    const owner = idOf(key.owner);
    if (owner !== undefined && owner !== actorId) return [];
    return readablePem(key.publicKeyPem) ? [{ publicKeyId: key.id, publicKeyPem: key.publicKeyPem }] : [];
  });
  return found.find((k) => k.publicKeyId === keyId) ?? found[0];
}

/** Is `doc`, fetched from `url`, an actor whose id is `url` (not one of ours): a document its key is read from? */
const isActorAt = (doc: ApDocument, url: string): boolean => isActorType(doc) && doc.id === url && !isLocalUrl(url);

/**
 * The key `keyId` from its server, with the actor that owns it: the actor document at the key's URL
 * (`<actor>#main-key`), or a key document (or an actor stub) there naming its owner on the same
 * origin, whose own document must list the key. Undefined when no actor owns it; throws FetchFailed.
 */
export async function fetchActorKey(keyId: string): Promise<{ key: ActorKey; ownerUri: string } | undefined> {
  const docUrl = keyId.replace(/#.*$/, '');
  const doc = await fetchObject(docUrl);
  let ownerUri = docUrl;
  let actor: ApDocument | undefined = isActorAt(doc, docUrl) ? doc : undefined;
  if (!actor) {
    const owner = isActorType(doc) ? idOf(doc.id) : idOf(doc.owner);
    if (!owner || owner === docUrl || !httpUrl(owner) || !sameOrigin(owner, keyId)) return undefined;
    ownerUri = owner;
    const ownerDoc = await fetchObject(owner);
    actor = isActorAt(ownerDoc, owner) ? ownerDoc : undefined;
  }
  const key = actor && keyOf(actor, ownerUri, keyId);
  return key && key.publicKeyId === keyId ? { key, ownerUri } : undefined;
}

// Keys fetched for signers we store nothing about, per process: the first request of a container
// from such a signer fetches its key, the next ones within the hour do not.
const KEPT_MS = 3600_000;
const KEPT_MAX = 5000;
type Kept = { publicKeyPem: string; ownerUri: string; fetchedAt: number };
const kept = new Map<string, Kept>();
const keep = (keyId: string, entry: Kept) => {
  kept.delete(keyId);
  if (kept.size >= KEPT_MAX) kept.delete(kept.keys().next().value!);
  kept.set(keyId, entry);
};

/**
 * The stored account of a signer's actor URI, read once per invocation: the key lookup and the
 * requester that then asks who signed (./documents.ts) read the same two items.
 */
export const storedSigner = (uri: string): Promise<Account | undefined> => oncePerRequest(`signer:${uri}`, () => remoteAccountByUri(uri));

/** Forgets the keys kept in memory (tests: a new container). */
export const forgetKeptKeys = (): void => kept.clear();

/**
 * The KeyLookup of the document endpoints: a key kept in memory or stored with its account, else
 * (or on `refresh`, a signature that failed, not sooner than a minute after the last fetch)
 * fetched from its server. Creates no account; a stored account's changed key is written to it.
 * Undefined when the key cannot be had, its server not answering now included.
 */
export const lookupSignerKey: KeyLookup = async (keyId, { refresh }) => {
  if (!httpUrl(keyId) || isLocalUrl(keyId)) return undefined;
  const now = Date.now();
  const inMemory = kept.get(keyId);
  if (inMemory && now - inMemory.fetchedAt < (refresh ? REFETCH_AT_MOST_EVERY_MS : KEPT_MS)) {
    return { publicKeyPem: inMemory.publicKeyPem, ownerUri: inMemory.ownerUri };
  }
  try {
    if (!refresh) {
      const stored = await storedSigner(keyId.replace(/#.*$/, ''));
      if (stored?.uri && stored.publicKeyId === keyId && stored.publicKeyPem) return { publicKeyPem: stored.publicKeyPem, ownerUri: stored.uri };
    }
    const fetched = await fetchActorKey(keyId);
    if (!fetched) return undefined;
    const found = { publicKeyPem: fetched.key.publicKeyPem, ownerUri: fetched.ownerUri };
    keep(keyId, { ...found, fetchedAt: now });
    const owner = await storedSigner(fetched.ownerUri);
    if (owner && (owner.publicKeyId !== keyId || owner.publicKeyPem !== found.publicKeyPem)) {
      const updated = await updateRemoteAccount(owner.id, { publicKeyId: keyId, publicKeyPem: found.publicKeyPem });
      knownInRequest(`signer:${fetched.ownerUri}`, updated);
    }
    return found;
  } catch (err) {
    if (err instanceof FetchFailed) {
      log.info('key lookup failed', { keyId, reason: err.reason });
      return undefined;
    }
    throw err;
  }
};
