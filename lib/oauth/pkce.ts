// Proof Key for Code Exchange (RFC 7636), S256 only, as Mastodon 4.3.
import { createHash } from 'node:crypto';
import { safeEqual } from '../crypto';

export const CODE_CHALLENGE_METHODS = ['S256'] as const;

/** A challenge or verifier: 43 to 128 unreserved characters (RFC 7636 section 4.1). */
export const isPkceValue = (value: string) => /^[A-Za-z0-9._~-]{43,128}$/.test(value);

export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/**
 * Does the verifier answer the challenge the code was issued with? A code issued
 * without a challenge must come without a verifier too, as Doorkeeper checks,
 * which stops a PKCE downgrade.
 */
export function verifierMatches(challenge: string | null, method: string | null, verifier: string | undefined): boolean {
  if (!challenge) return verifier === undefined || verifier === '';
  if (!verifier || method !== 'S256') return false;
  return safeEqual(s256(verifier), challenge);
}
