// HTTP Signatures (draft-cavage-http-signatures-12, as Mastodon and Fedify use
// them): signing our requests and verifying theirs, with node:crypto.
// OWNER: helper A. Signatures below are the contract other modules call.

export type SignedHeaders = Record<string, string>;

export type Signer = { keyId: string; privateKeyPem: string };

/** `SHA-256=<base64>` of the body, as the Digest header carries it. */
export function digestHeader(_body: string | Buffer): string {
  throw new Error('not built yet');
}

/**
 * The headers to add to an outgoing request: Date, Host, Digest (with a body) and
 * Signature over `(request-target) host date` (+ `digest content-type` with a body).
 */
export function signRequest(_req: { method: string; url: string; headers?: Record<string, string>; body?: string | Buffer }, _signer: Signer): SignedHeaders {
  throw new Error('not built yet');
}

export type KeyLookup = (keyId: string, opts: { refresh: boolean }) => Promise<{ publicKeyPem: string; ownerUri: string } | undefined>;

export type VerifyResult = { ok: true; keyId: string; ownerUri: string } | { ok: false; reason: string };

/**
 * Verifies an incoming request's Signature (rsa-sha256, or hs2019 naming an RSA key):
 * headers present and covered, Digest matching the body, Date within an hour of `now`,
 * then the signature with the key from `lookup` (looked up again with refresh once on failure).
 * `path` includes the query string.
 */
export async function verifyRequest(
  _req: { method: string; path: string; headers: Record<string, string | undefined>; body?: string | Buffer },
  _lookup: KeyLookup,
  _now?: Date,
): Promise<VerifyResult> {
  throw new Error('not built yet');
}
