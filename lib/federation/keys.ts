// Actor key pairs: an RSA-2048 pair per local account (made at registration, or on
// first need for older accounts) and one for the instance actor; the private key
// is stored encrypted with a key derived from SECRET_KEY_BASE.
// OWNER: helper A. Signatures below are the contract other modules call.
import type { Account } from '../db/accounts';
import type { Signer } from './signatures';

/** The account's public key (PEM), creating the pair on first need. */
export async function publicKeyOf(_account: Pick<Account, 'id'>): Promise<string> {
  throw new Error('not built yet');
}

/** The key a local account signs with (keyId `<actor>#main-key`), creating the pair on first need. */
export async function signerFor(_account: Pick<Account, 'id' | 'username'>): Promise<Signer> {
  throw new Error('not built yet');
}

/** The instance actor's public key and signer (keyId `<base>/actor#main-key`). */
export async function instancePublicKey(): Promise<string> {
  throw new Error('not built yet');
}
export async function instanceSigner(): Promise<Signer> {
  throw new Error('not built yet');
}
