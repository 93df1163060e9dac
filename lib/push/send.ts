// Sends one encrypted push message. web-push builds the request (TTL, Urgency
// and the payload encrypted to the subscriber's keys) in the form the
// subscription asked for, as Mastodon 4.4 does:
// - `standard` (Mastodon 4.4's `subscription[standard]=true`): RFC 8291
//   aes128gcm, salt and sender key inside the body, and RFC 8292 VAPID,
//   `Authorization: vapid t=<JWT>, k=<key>`;
// - otherwise (the default, which Ice Cubes and Mastodon's Android app
//   expect): the legacy aesgcm draft (draft-ietf-webpush-encryption-04), salt
//   and sender key in the `Encryption: salt=` and `Crypto-Key: dh=` headers,
//   and the VAPID draft's `Authorization: WebPush <JWT>` with the key as
//   `Crypto-Key: ...;p256ecdsa=<key>`.
// This module sends it over a connection whose DNS lookup refuses non-public
// addresses (./endpoint.ts), which also lets the local stage reach a
// plain-http loopback receiver (web-push's own sender speaks https only).
//
// Retries: 408, 429, 5xx and network failures are retried here, a bounded
// number of times with exponential backoff and jitter (a Retry-After header is
// honoured up to a cap), so one flaky answer costs seconds, not the message.
// The caller decides what happens after the last attempt (see ./deliver.ts).
import http from 'node:http';
import https from 'node:https';
import webpush from 'web-push';
import { config } from '../config';
import { checkEndpoint, EndpointRefused, guardedLookup } from './endpoint';
import type { VapidKeys } from './vapid';

/** Mastodon's Web::PushNotificationWorker: kept by the push service for 48 hours, normal urgency. */
export const PUSH_TTL_SECONDS = 48 * 3600;
export const PUSH_URGENCY = 'normal';

export type Target = { endpoint: string; p256dh: string; auth: string; standard: boolean };

export type ContentEncoding = 'aes128gcm' | 'aesgcm';
export const contentEncodingOf = (target: Pick<Target, 'standard'>): ContentEncoding => (target.standard ? 'aes128gcm' : 'aesgcm');

/**
 * A push service must accept a message body of 4096 bytes (RFC 8030 section
 * 7.2) and may refuse a larger one (413). The payload fits in one record of
 * web-push's 4096-byte record size in both encodings; what the encryption adds:
 * - aes128gcm (RFC 8188): an 86-byte header (16 salt, 4 record size, 1 key id
 *   length, 65 sender key), a 1-byte padding delimiter and the 16-byte tag;
 * - aesgcm: salt and key travel in headers; the record carries a 2-byte
 *   padding length before the data and the 16-byte tag after it.
 */
export const MAX_PUSH_BODY = 4096;
export const MAX_PAYLOAD_BYTES: Record<ContentEncoding, number> = {
  aes128gcm: MAX_PUSH_BODY - 86 - 1 - 16,
  aesgcm: MAX_PUSH_BODY - 2 - 16,
};

export type SendResult =
  | { kind: 'delivered'; status: number; attempts: number }
  /** 404 or 410: the push service says the subscription no longer exists. */
  | { kind: 'gone'; status: number; attempts: number }
  /** Still failing after the retries (transient), or refused by the service for good (another 4xx). */
  | { kind: 'failed'; transient: boolean; status?: number; error?: string; attempts: number }
  /** The endpoint now points somewhere it may not (DNS changed): nothing was sent. */
  | { kind: 'refused'; reason: string; attempts: number };

export type RetryPolicy = {
  attempts: number;
  baseDelayMs: number;
  /** Longest wait between attempts, Retry-After included. */
  maxDelayMs: number;
  /** Per attempt: connect, send and answer. */
  timeoutMs: number;
};

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5_000, timeoutMs: 10_000 };

const agents = {
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
};

type Answer = { status: number; retryAfter?: string };

/** One POST, through the guarded lookup; the answer's body is read and dropped. */
function post(url: URL, headers: Record<string, string | number>, body: Buffer | null, timeoutMs: number): Promise<Answer> {
  const secure = url.protocol === 'https:';
  const request = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers,
        agent: agents[secure ? 'https:' : 'http:'],
        lookup: guardedLookup(config.pushAllowLoopback, !secure),
        timeout: timeoutMs,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

const transientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** Retry-After in seconds or as an HTTP date, in milliseconds; undefined if absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A VAPID JWT is valid for 12 hours (web-push's default) and says only "this
// server, for this push service origin": signing one per request is most of a
// send's CPU, so each origin's is reused for an hour.
const VAPID_REUSE_MS = 3600_000;
type VapidHeaders = { authorization: string; cryptoKey?: string };
const vapidHeaders = new Map<string, VapidHeaders & { until: number }>();

/** The VAPID headers in the encoding's form: `vapid t=, k=` for aes128gcm; `WebPush <JWT>` and `p256ecdsa=` for aesgcm. */
function vapidHeadersFor(audience: string, vapid: VapidKeys, subject: string, encoding: ContentEncoding): VapidHeaders {
  const cacheKey = `${encoding} ${audience} ${vapid.publicKey} ${subject}`;
  const cached = vapidHeaders.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached;
  const made = webpush.getVapidHeaders(audience, subject, vapid.publicKey, vapid.privateKey, encoding);
  const headers = { authorization: made.Authorization, ...(made['Crypto-Key'] ? { cryptoKey: made['Crypto-Key'] } : {}) };
  if (vapidHeaders.size >= 1000) vapidHeaders.clear();
  vapidHeaders.set(cacheKey, { ...headers, until: Date.now() + VAPID_REUSE_MS });
  return headers;
}

/** Builds the encrypted, signed request for one subscription (web-push), in the encoding it asked for. */
export function pushRequest(target: Target, payload: string, vapid: VapidKeys, subject: string) {
  const { origin } = new URL(target.endpoint);
  const encoding = contentEncodingOf(target);
  const signed = vapidHeadersFor(origin, vapid, subject, encoding);
  const details = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
    TTL: PUSH_TTL_SECONDS,
    urgency: PUSH_URGENCY,
    contentEncoding: encoding,
    // No vapidDetails: the headers are signed above (the ones web-push would make), so web-push signs nothing itself.
    headers: { Authorization: signed.authorization },
  });
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(details.headers)) if (value !== undefined) headers[name] = value;
  // aesgcm: web-push wrote `Crypto-Key: dh=<sender key>`; the VAPID key joins it as the draft has it (`dh=...;p256ecdsa=...`).
  if (signed.cryptoKey) headers['Crypto-Key'] = headers['Crypto-Key'] ? `${headers['Crypto-Key']};${signed.cryptoKey}` : signed.cryptoKey;
  return { headers, body: details.body };
}

/**
 * Sends `payload` to `target`, retrying transient failures. Never throws for
 * what the push service or the network answers: the result says what happened.
 */
export async function sendPush(target: Target, payload: string, vapid: VapidKeys, subject: string, retry: RetryPolicy = DEFAULT_RETRY): Promise<SendResult> {
  let url: URL;
  try {
    // The URL's form again (a subscription stored before a rule changed); the addresses are checked by
    // the connection's own lookup, for the address it actually connects to, on every attempt.
    url = await checkEndpoint(target.endpoint);
  } catch (err) {
    if (err instanceof EndpointRefused) return { kind: 'refused', reason: err.reason, attempts: 0 };
    throw err;
  }
  // A body over what push services must take would be refused (413) on every attempt.
  const encoding = contentEncodingOf(target);
  const size = Buffer.byteLength(payload, 'utf8');
  if (size > MAX_PAYLOAD_BYTES[encoding]) {
    return { kind: 'failed', transient: false, error: `payload of ${size} bytes is over the ${MAX_PAYLOAD_BYTES[encoding]} an ${encoding} push can carry`, attempts: 0 };
  }
  // Each attempt is encrypted afresh (new salt and ephemeral key), as a resend should be.
  let last: SendResult = { kind: 'failed', transient: true, attempts: 0 };
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    let wait: number | undefined;
    let request: ReturnType<typeof pushRequest>;
    try {
      request = pushRequest(target, payload, vapid, subject);
    } catch (err) {
      // Keys web-push cannot encrypt to: no retry will change that.
      return { kind: 'failed', transient: false, error: err instanceof Error ? err.message : String(err), attempts: attempt };
    }
    try {
      const { headers, body } = request;
      const answer = await post(url, headers, body, retry.timeoutMs);
      if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered', status: answer.status, attempts: attempt };
      if (answer.status === 404 || answer.status === 410) return { kind: 'gone', status: answer.status, attempts: attempt };
      if (!transientStatus(answer.status)) return { kind: 'failed', transient: false, status: answer.status, attempts: attempt };
      last = { kind: 'failed', transient: true, status: answer.status, attempts: attempt };
      wait = retryAfterMs(answer.retryAfter);
    } catch (err) {
      if (err instanceof EndpointRefused) return { kind: 'refused', reason: err.reason, attempts: attempt };
      last = { kind: 'failed', transient: true, error: err instanceof Error ? err.message : String(err), attempts: attempt };
    }
    if (attempt < retry.attempts) {
      const backoff = retry.baseDelayMs * 2 ** (attempt - 1);
      await sleep(Math.min(retry.maxDelayMs, wait ?? backoff / 2 + Math.random() * (backoff / 2)));
    }
  }
  return last;
}
