// A Web Push receiver on loopback, standing in for a browser's push service
// and the browser behind it: it holds a real P-256 key pair and auth secret,
// records each request, answers the statuses a test queues, decrypts bodies
// per RFC 8291 / RFC 8188 (aes128gcm) with node:crypto alone, and checks the
// RFC 8292 VAPID Authorization header.
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
  decrypt: (body: Buffer) => string;
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

export type VapidClaims = { aud: string; exp: number; sub: string };

/** Checks `vapid t=<JWT>, k=<key>`: an ES256 JWT signed by `k`; answers the claims and the key. */
export function verifyVapid(authorization: string | undefined): { claims: VapidClaims; key: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a VAPID Authorization header: ${authorization}`);
  const [header, payload, signature] = match[1]!.split('.') as [string, string, string];
  const key = match[2]!;
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const signed = verify('sha256', Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) throw new Error('VAPID JWT signature does not verify with k');
  const alg = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg;
  if (alg !== 'ES256') throw new Error(`VAPID JWT alg ${alg}`);
  return { claims: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), key };
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
    decrypt: (body) => decryptAes128gcm(body, ecdh, auth),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
