// Sends one encrypted push message. web-push builds the request (RFC 8291
// aes128gcm encryption to the subscriber's keys, the RFC 8292 VAPID
// Authorization header, TTL and Urgency); this module sends it over a
// connection whose DNS lookup refuses non-public addresses (./endpoint.ts),
// which also lets the local stage reach a plain-http loopback receiver
// (web-push's own sender speaks https only).
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

export type Target = { endpoint: string; p256dh: string; auth: string };

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
const vapidHeaders = new Map<string, { authorization: string; until: number }>();

function vapidAuthorization(audience: string, vapid: VapidKeys, subject: string): string {
  const cacheKey = `${audience} ${vapid.publicKey} ${subject}`;
  const cached = vapidHeaders.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.authorization;
  const { Authorization } = webpush.getVapidHeaders(audience, subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
  if (vapidHeaders.size >= 1000) vapidHeaders.clear();
  vapidHeaders.set(cacheKey, { authorization: Authorization, until: Date.now() + VAPID_REUSE_MS });
  return Authorization;
}

/** Builds the encrypted, signed request for one subscription (web-push, aes128gcm). */
export function pushRequest(target: Target, payload: string, vapid: VapidKeys, subject: string) {
  const { origin } = new URL(target.endpoint);
  const details = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
    TTL: PUSH_TTL_SECONDS,
    urgency: PUSH_URGENCY,
    contentEncoding: 'aes128gcm',
    // No vapidDetails: the header is signed above (the one web-push would make), so web-push signs nothing itself.
    headers: { Authorization: vapidAuthorization(origin, vapid, subject) },
  });
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(details.headers)) if (value !== undefined) headers[name] = value;
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
