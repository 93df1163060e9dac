// A Web Push receiver on loopback, standing in for a browser's push service
// and the client behind it: it holds a real P-256 key pair and auth secret,
// records each request, answers the statuses a test queues, and decrypts
// bodies with node:crypto alone, by their Content-Encoding as a client does:
// RFC 8291 / RFC 8188 aes128gcm (a `standard` subscription), or the legacy
// aesgcm of draft-ietf-webpush-encryption-04 (salt and sender key in the
// Encryption and Crypto-Key headers) that Ice Cubes and Mastodon's Android app
// decrypt. It checks VAPID in both forms: RFC 8292 `vapid t=, k=`, and the
// draft's `WebPush <JWT>` with the key as `Crypto-Key: p256ecdsa=`.
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PushRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer };

export type PushReceiver = {
  endpoint: string;
  origin: string;
  /** As a browser hands them to the page: base64url. */
  keys: { p256dh: string; auth: string };
  received: PushRequest[];
  /** Statuses for the next requests, in order; 201 once they run out. */
  answer: (...statuses: (number | { status: number; headers: Record<string, string> })[]) => void;
  /** Resolves with the nth request (1-based) once it has arrived. */
  request: (nth: number, timeoutMs?: number) => Promise<PushRequest>;
  /**
   * The plaintext of a request this receiver got, decrypted by its
   * Content-Encoding. A bare body must be one of `received`'s (aesgcm needs
   * the request's headers).
   */
  decrypt: (request: PushRequest | Buffer) => string;
  /**
   * The request's VAPID, either form, checked as a push service checks it:
   * signed by the key it names, for this receiver's origin, expiring within 24 hours.
   */
  vapid: (request: PushRequest) => VerifiedVapid;
  close: () => Promise<void>;
};

const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer | string, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length));

/** RFC 8291 section 3 with RFC 8188: the receiver's side of aes128gcm. */
export function decryptAes128gcm(body: Buffer, receiverPrivate: ReturnType<typeof createECDH>, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderPublic = body.subarray(21, 21 + idLength);
  if (idLength !== 65) throw new Error(`keyid is not an uncompressed P-256 point (${idLength} bytes)`);
  const ecdhSecret = receiverPrivate.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiverPrivate.getPublicKey(), senderPublic]);
  const ikm = hkdf(ecdhSecret, authSecret, keyInfo, 32);
  const cek = hkdf(ikm, salt, 'Content-Encoding: aes128gcm\0', 16);
  const nonce = hkdf(ikm, salt, 'Content-Encoding: nonce\0', 12);
  const records = body.subarray(21 + idLength);
  if (records.length > recordSize) throw new Error('more than one record: not expected for a push message');
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 and optional zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('bad padding delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/**
 * The parameters of a header like `Crypto-Key: dh=...;p256ecdsa=...` or
 * `Encryption: salt=...;rs=...` (entries split by `,` or `;`, values maybe
 * quoted); the first of each name.
 */
export function headerParams(value: string | string[] | undefined): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of (Array.isArray(value) ? value.join(',') : value ?? '').split(/[;,]/)) {
    const match = /^\s*([\w-]+)\s*=\s*"?([^"]*)"?\s*$/.exec(part);
    if (match && !params.has(match[1]!.toLowerCase())) params.set(match[1]!.toLowerCase(), match[2]!);
  }
  return params;
}

/**
 * The receiver's side of aesgcm (draft-ietf-webpush-encryption-04 with
 * draft-ietf-httpbis-encryption-encoding-03): the sender's key from
 * `Crypto-Key: dh=`, the salt (and record size) from `Encryption:`; the
 * ECDH secret is mixed with the auth secret ("Content-Encoding: auth"), then
 * the key and nonce come from it and the salt, with a context naming both
 * public keys; each record is a 2-byte padding length, the padding, the data.
 */
export function decryptAesgcm(body: Buffer, headers: IncomingHttpHeaders, receiverPrivate: ReturnType<typeof createECDH>, authSecret: Buffer): string {
  const dh = headerParams(headers['crypto-key']).get('dh');
  const encryption = headerParams(headers.encryption);
  const salt = encryption.get('salt');
  if (!dh) throw new Error(`no dh= in Crypto-Key: ${headers['crypto-key']}`);
  if (!salt) throw new Error(`no salt= in Encryption: ${headers.encryption}`);
  const senderPublic = Buffer.from(dh, 'base64url');
  const saltBytes = Buffer.from(salt, 'base64url');
  if (senderPublic.length !== 65) throw new Error(`dh is not an uncompressed P-256 point (${senderPublic.length} bytes)`);
  if (saltBytes.length !== 16) throw new Error(`salt is ${saltBytes.length} bytes, not 16`);
  const recordSize = Number(encryption.get('rs') ?? 4096);

  const receiverPublic = receiverPrivate.getPublicKey();
  const lengthPrefixed = (key: Buffer) => Buffer.concat([Buffer.from([0, key.length]), key]);
  const context = Buffer.concat([Buffer.from('P-256\0'), lengthPrefixed(receiverPublic), lengthPrefixed(senderPublic)]);
  const ikm = hkdf(receiverPrivate.computeSecret(senderPublic), authSecret, 'Content-Encoding: auth\0', 32);
  const cek = hkdf(ikm, saltBytes, Buffer.concat([Buffer.from('Content-Encoding: aesgcm\0'), context]), 16);
  const baseNonce = hkdf(ikm, saltBytes, Buffer.concat([Buffer.from('Content-Encoding: nonce\0'), context]), 12);

  const plaintext: Buffer[] = [];
  // A ciphertext record is rs bytes of plaintext (padding included) and the 16-byte tag.
  for (let offset = 0, counter = 0; offset < body.length; offset += recordSize + 16, counter++) {
    const record = body.subarray(offset, offset + recordSize + 16);
    if (record.length <= 16) throw new Error('a record too short for its tag');
    const nonce = Buffer.from(baseNonce);
    // The record's sequence number XORed into the nonce's low bytes (records here are few: 32 bits suffice).
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ counter) >>> 0, 8);
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    const padLength = padded.readUInt16BE(0);
    if (2 + padLength > padded.length || padded.subarray(2, 2 + padLength).some((b) => b !== 0)) throw new Error('bad padding');
    plaintext.push(padded.subarray(2 + padLength));
  }
  return Buffer.concat(plaintext).toString('utf8');
}

export type VapidClaims = { aud: string; exp: number; sub: string };
export type VerifiedVapid = {
  /** `vapid`: RFC 8292 (`vapid t=, k=`); `webpush`: the draft's `WebPush <JWT>` with `Crypto-Key: p256ecdsa=`. */
  scheme: 'vapid' | 'webpush';
  claims: VapidClaims;
  /** The signing key, base64url, as the request names it. */
  key: string;
};

/** Checks a request's VAPID, either form: an ES256 JWT signed by the key the request names; answers the claims and the key. */
export function verifyVapid(headers: IncomingHttpHeaders): VerifiedVapid {
  const authorization = headers.authorization ?? '';
  let scheme: VerifiedVapid['scheme'];
  let jwt: string | undefined;
  let key: string | undefined;
  if (/^vapid /i.test(authorization)) {
    scheme = 'vapid';
    const params = headerParams(authorization.slice('vapid '.length));
    jwt = params.get('t');
    key = params.get('k');
  } else if (/^WebPush /i.test(authorization)) {
    scheme = 'webpush';
    jwt = authorization.slice('WebPush '.length).trim();
    key = headerParams(headers['crypto-key']).get('p256ecdsa');
  } else {
    throw new Error(`not a VAPID Authorization header: ${authorization}`);
  }
  if (!jwt || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(jwt)) throw new Error(`no JWT in ${authorization}`);
  if (!key) throw new Error(scheme === 'vapid' ? `no k= in ${authorization}` : `no p256ecdsa= in Crypto-Key: ${headers['crypto-key']}`);
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error(`the VAPID key is not an uncompressed P-256 point: ${key}`);
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const signed = verify('sha256', Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) throw new Error('VAPID JWT signature does not verify with the key the request names');
  const alg = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg;
  if (alg !== 'ES256') throw new Error(`VAPID JWT alg ${alg}`);
  return { scheme, claims: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), key };
}

export async function pushReceiver(): Promise<PushReceiver> {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const received: PushRequest[] = [];
  const queued: (number | { status: number; headers: Record<string, string> })[] = [];
  const waiters: { nth: number; resolve: (r: PushRequest) => void }[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      const next = queued.shift() ?? 201;
      const { status, headers } = typeof next === 'number' ? { status: next, headers: {} } : next;
      res.writeHead(status, headers).end();
      for (const w of waiters.filter((w) => w.nth === received.length)) w.resolve(request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    endpoint: `${origin}/push/${randomBytes(8).toString('hex')}`,
    origin,
    keys: { p256dh: ecdh.getPublicKey('base64url'), auth: auth.toString('base64url') },
    received,
    answer: (...statuses) => queued.push(...statuses),
    request: (nth, timeoutMs = 20_000) =>
      received[nth - 1]
        ? Promise.resolve(received[nth - 1]!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`push request ${nth} did not arrive within ${timeoutMs} ms`)), timeoutMs);
            waiters.push({ nth, resolve: (r) => (clearTimeout(timer), resolve(r)) });
          }),
    decrypt: (input) => {
      const request = Buffer.isBuffer(input) ? received.find((r) => r.body === input) : input;
      if (!request) throw new Error('not the body of a request this receiver got: pass the request');
      const encoding = request.headers['content-encoding'];
      if (encoding === 'aes128gcm') return decryptAes128gcm(request.body, ecdh, auth);
      if (encoding === 'aesgcm') return decryptAesgcm(request.body, request.headers, ecdh, auth);
      throw new Error(`Content-Encoding ${encoding}: neither aes128gcm nor aesgcm`);
    },
    vapid: (request) => {
      const verified = verifyVapid(request.headers);
      const { aud, exp, sub } = verified.claims;
      if (aud !== origin) throw new Error(`VAPID aud ${aud}, not this push service's origin ${origin}`);
      const now = Date.now() / 1000;
      if (!(typeof exp === 'number' && exp > now && exp <= now + 24 * 3600)) throw new Error(`VAPID exp ${exp} is not within the next 24 hours`);
      if (typeof sub !== 'string' || !/^(mailto|https):/.test(sub)) throw new Error(`VAPID sub ${sub} is no mailto: or https: contact`);
      return verified;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
