// The access token a push payload carries. Mastodon puts the subscription's own
// access token in every push (`access_token`): its web app fetches the full
// notification with it, and native apps (Mastodon for iOS, Metatext...) match it
// against their logins to know which account a push is for. Tokens are stored
// only as hashes, so the raw value is kept for this one purpose, sealed: AES-256-GCM
// under a key derived from SECRET_KEY_BASE (an SSM parameter, never in the
// table), bound to its subscription, and deleted with it (DELETE, a new POST, or
// the token's revocation). A table dump alone reveals no token. The payload is
// encrypted end to end to the subscriber, who holds the token already.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { secrets } from '../secrets';

const derived = new Map<string, Buffer>();

function keyFor(secret: string): Buffer {
  let key = derived.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'tootless', 'push subscription access token v1', 32));
    derived.set(secret, key);
  }
  return key;
}

/** Seals `raw` for the subscription named by `binding` (account and token ids): base64url of iv, tag, ciphertext. */
export function sealToken(raw: string, binding: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secrets().secretKeyBase), iv);
  cipher.setAAD(Buffer.from(binding));
  const body = Buffer.concat([cipher.update(raw, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The raw token, or undefined when the seal does not open (another binding, a rotated secret, a damaged value). */
export function openToken(sealed: string, binding: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secrets().secretKeyBase), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
