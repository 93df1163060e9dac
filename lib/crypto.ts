import { createCipheriv, createDecipheriv, createHash, createHmac, generateKeyPair, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Tokens and codes are high-entropy random strings: one SHA-256 is the right hash for them. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export const hmac = (secret: string, value: string): string => createHmac('sha256', secret).update(value).digest('base64url');

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from `secret` for one purpose (`info`),
 * bound to `binding` (authenticated, not stored): base64url of iv, tag, ciphertext.
 * For values that must be stored readable by us alone (actor private keys).
 */
export function sealSecret(plain: string, opts: { secret: string; info: string; binding: string }): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(opts.secret, opts.info), iv);
  cipher.setAAD(Buffer.from(opts.binding));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The sealed value, or undefined when the seal does not open (another binding or purpose, a changed secret, damage). */
export function openSecret(sealed: string, opts: { secret: string; info: string; binding: string }): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(opts.secret, opts.info), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(opts.binding));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Derived keys by secret and purpose: HKDF is cheap, but a verify-heavy path should not repeat it. */
const sealingKeys = new Map<string, Buffer>();
function sealingKey(secret: string, info: string): Buffer {
  const id = `${info}\u0000${secret}`;
  let key = sealingKeys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'tootless', info, 32));
    sealingKeys.set(id, key);
  }
  return key;
}

/** A new RSA key pair as PEM (SPKI public, PKCS#8 private), made off the event loop. */
export async function generateRsaKeyPair(bits = 2048): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}
