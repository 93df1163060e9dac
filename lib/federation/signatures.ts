// HTTP Signatures (draft-cavage-http-signatures-12, as Mastodon and Fedify use
// them): signing our requests and verifying theirs, with node:crypto.
//
// What peers send is looser than the draft's examples: parameters in any order,
// with or without spaces, `algorithm` absent or `hs2019` (meaning "whatever the key
// is", an RSA key in practice), several algorithms in one Digest header. Verification
// runs the cheap checks first (shape, covered headers, Date, Digest) so that a
// malformed or stale request never makes us fetch a key.
import { createHash, createPrivateKey, createPublicKey, createSign, verify, type KeyObject } from 'node:crypto';
import { HttpError } from '../errors';
import { log } from '../log';

export type SignedHeaders = Record<string, string>;

export type Signer = { keyId: string; privateKeyPem: string };

/** How far `Date` may be from our clock, either way (Mastodon: 1 hour; clocks drift, queues retry). */
export const DATE_TOLERANCE_MS = 60 * 60 * 1000;

/** The content type of what we POST (Mastodon's). */
const DEFAULT_CONTENT_TYPE = 'application/activity+json';

const sha256Base64 = (body: string | Buffer): string => createHash('sha256').update(body).digest('base64');

/** `SHA-256=<base64>` of the body, as the Digest header carries it. */
export function digestHeader(body: string | Buffer): string {
  return `SHA-256=${sha256Base64(body)}`;
}

/** `(request-target)`: the lower-cased method, a space, the path with its query. */
const requestTarget = (method: string, path: string) => `${method.toLowerCase()} ${path}`;

/** The draft's signing string: one `name: value` line per covered header, in the order the signature lists them. */
const signingString = (names: string[], value: (name: string) => string): string => names.map((name) => `${name}: ${value(name)}`).join('\n');

/**
 * The headers to add to an outgoing request: Date, Host, Digest (with a body) and
 * Signature over `(request-target) host date` (+ `digest content-type` with a body).
 * Names are lower-case; `content-type` is answered too with a body (the caller's,
 * else application/activity+json), and replaces whatever spelling the caller used,
 * since it is what was signed. `now` is for tests.
 */
export function signRequest(
  req: { method: string; url: string; headers?: Record<string, string>; body?: string | Buffer },
  signer: Signer,
  now: Date = new Date(),
): SignedHeaders {
  const url = new URL(req.url);
  const given = lowerCased(req.headers ?? {});
  const out: SignedHeaders = { host: url.host, date: now.toUTCString() };
  const names = ['(request-target)', 'host', 'date'];
  if (req.body !== undefined) {
    out.digest = digestHeader(req.body);
    out['content-type'] = given['content-type'] ?? DEFAULT_CONTENT_TYPE;
    names.push('digest', 'content-type');
  }
  const target = requestTarget(req.method, `${url.pathname}${url.search}`);
  const text = signingString(names, (name) => (name === '(request-target)' ? target : out[name]!));
  const signature = createSign('sha256').update(text).sign(privateKeyObject(signer.privateKeyPem), 'base64');
  out.signature = [
    `keyId="${signer.keyId}"`,
    'algorithm="rsa-sha256"',
    `headers="${names.join(' ')}"`,
    `signature="${signature}"`,
  ].join(',');
  return out;
}

/** Parsed private keys by PEM: parsing PKCS#8 costs twice the RSA signature itself, and we sign with few keys. */
const privateKeys = new Map<string, KeyObject>();
const PRIVATE_KEY_CACHE = 100;

function privateKeyObject(pem: string): KeyObject {
  let key = privateKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    if (privateKeys.size >= PRIVATE_KEY_CACHE) privateKeys.clear();
    privateKeys.set(pem, key);
  }
  return key;
}

export type KeyLookup = (keyId: string, opts: { refresh: boolean }) => Promise<{ publicKeyPem: string; ownerUri: string } | undefined>;

export type VerifyResult = { ok: true; keyId: string; ownerUri: string } | { ok: false; reason: string };

/** The parameters of a Signature header (or of `Authorization: Signature ...`), names lower-cased. */
export type SignatureParams = { keyId: string; algorithm: string | undefined; headers: string[]; signature: string; created?: string; expires?: string };

/** One `name="quoted value"` or `name=token` parameter, with optional spaces around `=` and between parameters. */
const PARAM = /\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s"]*))\s*(?:,|$)/y;

/**
 * Parses the parameters of a signature, in any order; unknown ones are ignored, the
 * first of a repeated one wins. Undefined when it is not a list of parameters or
 * lacks keyId or signature.
 */
export function parseSignatureHeader(value: string): SignatureParams | undefined {
  const params = new Map<string, string>();
  PARAM.lastIndex = 0;
  const text = value.trim();
  while (PARAM.lastIndex < text.length) {
    const at = PARAM.lastIndex;
    const match = PARAM.exec(text);
    if (!match || PARAM.lastIndex === at) return undefined;
    const name = match[1]!.toLowerCase();
    const raw = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!;
    if (!params.has(name)) params.set(name, raw);
  }
  const keyId = params.get('keyid');
  const signature = params.get('signature');
  if (!keyId || !signature) return undefined;
  // The draft's default when `headers` is absent is `date` alone, which our rules then refuse.
  const headers = (params.get('headers') ?? 'date').toLowerCase().split(/\s+/).filter(Boolean);
  return { keyId, algorithm: params.get('algorithm')?.toLowerCase(), headers, signature, created: params.get('created'), expires: params.get('expires') };
}

/** The signature parameters of a request: the Signature header, else an Authorization header of scheme Signature. */
function signatureOf(headers: Record<string, string | undefined>): string | undefined {
  if (headers.signature) return headers.signature;
  const auth = headers.authorization;
  return auth && /^signature\s+/i.test(auth) ? auth.replace(/^signature\s+/i, '') : undefined;
}

/** The keyId a request's signature names (Signature header or Authorization: Signature), if it parses. */
export function requestKeyId(headers: Record<string, string | undefined>): string | undefined {
  const header = signatureOf(lowerCased(headers));
  return header ? parseSignatureHeader(header)?.keyId : undefined;
}

/** `rsa-sha256`, `hs2019` (the key decides: RSA here), or none (the key decides). */
const ACCEPTED_ALGORITHMS = new Set([undefined, 'rsa-sha256', 'hs2019']);

/**
 * The Digest header's SHA-256 against the body. Several algorithms may be listed
 * (`SHA-256=...,SHA-512=...`); SHA-256 must be among them and match, the others are ignored.
 */
export function digestMatches(header: string, body: string | Buffer): boolean {
  const expected = sha256Base64(body);
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    if (part.slice(0, eq).trim().toLowerCase() === 'sha-256') return part.slice(eq + 1).trim() === expected;
  }
  return false;
}

/** Parsed public keys by PEM: parsing costs more than a verify, and a busy peer signs with one key for years. */
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEY_CACHE = 1000;

function publicKeyObject(pem: string): KeyObject | undefined {
  let key = publicKeys.get(pem);
  if (key) return key;
  try {
    key = createPublicKey(pem);
  } catch {
    return undefined;
  }
  if (publicKeys.size >= PUBLIC_KEY_CACHE) publicKeys.clear();
  publicKeys.set(pem, key);
  return key;
}

/** Does `signature` (base64) sign `text` under this PEM? Only RSA keys: hs2019 from our peers means RSA. */
function signatureValid(pem: string, text: string, signature: string): boolean {
  const key = publicKeyObject(pem);
  if (!key || key.asymmetricKeyType !== 'rsa') return false;
  try {
    return verify('sha256', Buffer.from(text), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

const fail = (reason: string): VerifyResult => ({ ok: false, reason });

/**
 * Verifies an incoming request's Signature (rsa-sha256, or hs2019 naming an RSA key):
 * headers present and covered, Digest matching the body, Date within an hour of `now`,
 * then the signature with the key from `lookup` (looked up again with refresh once on failure).
 * `path` includes the query string.
 */
export async function verifyRequest(
  req: { method: string; path: string; headers: Record<string, string | undefined>; body?: string | Buffer },
  lookup: KeyLookup,
  now: Date = new Date(),
): Promise<VerifyResult> {
  const headers = lowerCased(req.headers);
  const header = signatureOf(headers);
  if (!header) return fail('missing signature');
  const params = parseSignatureHeader(header);
  if (!params) return fail('malformed signature');
  if (!ACCEPTED_ALGORITHMS.has(params.algorithm)) return fail('unsupported algorithm');

  const hasBody = req.body !== undefined && req.body.length > 0;
  const required = ['(request-target)', 'host', 'date', ...(hasBody ? ['digest'] : [])];
  const uncovered = required.find((name) => !params.headers.includes(name));
  if (uncovered) return fail(`${uncovered} not signed`);
  const absent = params.headers.find((name) => !pseudoHeader(name) && headers[name] === undefined);
  if (absent) return fail(`missing header ${absent}`);
  if (params.headers.includes('(created)') && !params.created) return fail('missing created');
  if (params.headers.includes('(expires)') && !params.expires) return fail('missing expires');

  const date = Date.parse(headers.date!);
  if (Number.isNaN(date)) return fail('bad date');
  if (Math.abs(now.getTime() - date) > DATE_TOLERANCE_MS) return fail('date out of range');
  if (params.expires && Number(params.expires) * 1000 < now.getTime()) return fail('signature expired');

  if (params.headers.includes('digest') && !digestMatches(headers.digest!, req.body ?? '')) return fail('digest mismatch');

  const target = requestTarget(req.method, req.path);
  const text = signingString(params.headers, (name) => {
    if (name === '(request-target)') return target;
    if (name === '(created)') return params.created!;
    if (name === '(expires)') return params.expires!;
    return headers[name]!.trim();
  });

  // The lookup fetches a key it does not know yet, so an unknown key is worth no second try.
  const known = await lookupQuietly(lookup, params.keyId, false);
  if (!known) return fail('unknown key');
  if (signatureValid(known.publicKeyPem, text, params.signature)) return { ok: true, keyId: params.keyId, ownerUri: known.ownerUri };
  // The actor may have rotated its key since we stored it: fetch it once more.
  const fresh = await lookupQuietly(lookup, params.keyId, true);
  if (fresh && fresh.publicKeyPem !== known.publicKeyPem && signatureValid(fresh.publicKeyPem, text, params.signature)) {
    return { ok: true, keyId: params.keyId, ownerUri: fresh.ownerUri };
  }
  return fail('bad signature');
}

/**
 * A key that cannot be had (its server down, its document broken) is an unverifiable request, not our failure; a
 * lookup that decides the answer itself (an HttpError: the inbox's key gate, lib/federation/key_gate.ts) is let through.
 */
async function lookupQuietly(lookup: KeyLookup, keyId: string, refresh: boolean) {
  try {
    return await lookup(keyId, { refresh });
  } catch (err) {
    if (err instanceof HttpError) throw err;
    log.warn('signature: key lookup failed', { keyId, refresh, err });
    return undefined;
  }
}

const pseudoHeader = (name: string) => name.startsWith('(');

function lowerCased(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}
