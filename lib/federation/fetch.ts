// Outbound requests to other servers: every one passes the address guard at
// connect time (./guard.ts), is signed, bounded in time and size.
//
// Node's own http/https clients rather than fetch(): they take the guarded DNS
// lookup per request (as lib/push/send.ts does), and redirects are followed by
// hand so that each hop is checked and signed again for its own host.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { config, SOFTWARE } from '../config';
import { jsonNestsDeeper } from '../schema';
import { checkOutboundUrl, DestinationRefused, outboundLookup, type OutboundRules } from './guard';
import { signRequest, type Signer } from './signatures';
import { instanceSigner } from './keys';
import { federationRefusalOfUrl } from '../policy/instance_domains';

export class FetchFailed extends Error {
  constructor(readonly url: string, readonly reason: string, readonly status?: number) {
    super(`${url}: ${reason}`);
    this.name = 'FetchFailed';
  }
}

/** The address guard refused the destination (./guard.ts): nothing was sent, and trying again will not help. */
export class FetchRefused extends FetchFailed {
  constructor(url: string, reason: string) {
    super(url, reason);
    this.name = 'FetchRefused';
  }
}

/** The answer was larger than the caller takes: refused, not a failure to retry (the file will not shrink). */
export class FetchTooLarge extends FetchFailed {
  constructor(url: string, reason: string) {
    super(url, reason);
    this.name = 'FetchTooLarge';
  }
}

/** Time for a whole request: connect, send, answer (redirects included). */
export const REQUEST_TIMEOUT_MS = 10_000;
let requestTimeoutMs = REQUEST_TIMEOUT_MS;

/** Tests: a shorter time limit, so a server that never answers need not cost ten seconds (undefined restores it). */
export function useRequestTimeout(ms: number | undefined): void {
  requestTimeoutMs = ms ?? REQUEST_TIMEOUT_MS;
}
/** The time limit of a request now (REQUEST_TIMEOUT_MS unless a test shortened it). */
export const requestTimeout = (): number => requestTimeoutMs;
/** The largest document we read. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
export const MAX_REDIRECTS = 3;

const ACCEPT_AP = 'application/activity+json, application/ld+json';
const ACTIVITY_JSON = 'application/activity+json';

const agents = {
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
};

const userAgent = () => `${SOFTWARE.name}/${SOFTWARE.version} (+${config.baseUrl}/)`;

type Answer = { status: number; location?: string; body: Buffer; contentType: string; retryAfter?: string };

/**
 * How a GET reads its answer beyond the size cap: `truncate` keeps the first `maxBytes` of a larger body
 * (a web page's metadata sits at its start) instead of refusing it; `acceptType` refuses a 2xx answer whose
 * Content-Type it does not take before reading its body (lib/cards: only text/html pages).
 */
export type ReadOptions = { truncate?: boolean; acceptType?: (contentType: string) => boolean } & OutboundRules;

class UnwantedType extends Error {
  constructor(readonly contentType: string) {
    super(`answered with content type ${JSON.stringify(contentType)}`);
  }
}

class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`larger than ${limit} bytes`);
  }
}

/** The answer's body, decoded if the server compressed it anyway, at most `maxBytes`. */
function readBody(res: IncomingMessage, maxBytes: number, truncate = false): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) return Promise.reject(new TooLarge(maxBytes));
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoders: Record<string, () => NodeJS.ReadWriteStream> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };
  const stream: Readable = decoders[encoding] ? (res.pipe(decoders[encoding]!()) as unknown as Readable) : res;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        stream.destroy();
        if (truncate) resolve(Buffer.concat([...chunks, chunk.subarray(0, chunk.length - (size - maxBytes))]));
        else reject(new TooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    res.on('error', reject);
    // Cut off by the deadline (or the peer) part-way: whatever arrived is not the document.
    res.on('close', () => {
      if (!res.complete) reject(new Error(`connection closed before the answer was complete`));
    });
  });
}

/** One request through the guard, within `deadline` (epoch ms). Throws DestinationRefused, TooLarge or network errors. */
function send(
  url: URL,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: Buffer | undefined,
  deadline: number,
  maxBytes: number,
  read: ReadOptions = {},
): Promise<Answer> {
  const secure = url.protocol === 'https:';
  const request = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new Error(`no answer within ${requestTimeoutMs} ms`));
    const req = request(url, { method, headers, agent: agents[secure ? 'https:' : 'http:'], lookup: outboundLookup(url, read) }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      const contentType = String(res.headers['content-type'] ?? '');
      if (maxBytes === 0) {
        // The caller wants the status only (and when to come back): drain the answer so the connection can be reused.
        res.resume();
        return resolve({ status, location, body: Buffer.alloc(0), contentType, retryAfter: res.headers['retry-after'] });
      }
      if (read.acceptType && status >= 200 && status <= 299 && !read.acceptType(contentType)) {
        res.destroy();
        return reject(new UnwantedType(contentType));
      }
      readBody(res, maxBytes, read.truncate).then((buf) => resolve({ status, location, body: buf, contentType }), reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

/** Network errors, refusals and size overruns as FetchFailed, naming the URL. */
function failure(url: string, err: unknown): FetchFailed {
  if (err instanceof FetchFailed) return err;
  if (err instanceof DestinationRefused) return new FetchRefused(url, err.reason);
  if (err instanceof TooLarge) return new FetchTooLarge(url, err.message);
  if (err instanceof UnwantedType) return new FetchFailed(url, err.message);
  return new FetchFailed(url, err instanceof Error ? err.message : String(err));
}

/**
 * Nothing is sent to a server the operator suspended (or, in limited federation mode, did not allow), nor read
 * from it (each redirect hop is asked again).
 */
async function refuseSuspended(url: string): Promise<void> {
  const refusal = await federationRefusalOfUrl(url);
  if (refusal === 'suspended') throw new FetchRefused(url, 'the operator suspended this server');
  if (refusal) throw new FetchRefused(url, 'limited federation mode: the operator did not allow this server');
}

const isRedirect = (status: number) => [301, 302, 303, 307, 308].includes(status);

/**
 * A GET through the guard, following at most MAX_REDIRECTS redirects, each one checked
 * and (with a signer) signed again; answers the final URL and its 2xx body, or FetchFailed.
 */
export async function guardedGet(
  rawUrl: string,
  opts: { accept: string; signer?: Signer; maxBytes?: number; timeoutMs?: number } & ReadOptions,
): Promise<{ url: string; body: Buffer; contentType: string }> {
  const deadline = Date.now() + (opts.timeoutMs ?? requestTimeoutMs);
  let current = rawUrl;
  for (let hop = 0; ; hop++) {
    let answer: Answer;
    try {
      await refuseSuspended(current);
      const url = checkOutboundUrl(current, opts);
      const headers: Record<string, string> = { accept: opts.accept, 'user-agent': userAgent() };
      const signed = opts.signer ? signRequest({ method: 'GET', url: url.href, headers }, opts.signer) : {};
      answer = await send(url, 'GET', { ...headers, ...signed }, undefined, deadline, opts.maxBytes ?? MAX_DOCUMENT_BYTES, opts);
    } catch (err) {
      throw failure(current, err);
    }
    if (isRedirect(answer.status) && answer.location) {
      if (hop >= MAX_REDIRECTS) throw new FetchFailed(rawUrl, `more than ${MAX_REDIRECTS} redirects`);
      current = new URL(answer.location, current).href;
      continue;
    }
    if (answer.status < 200 || answer.status > 299) throw new FetchFailed(current, `answered ${answer.status}`, answer.status);
    return { url: current, body: answer.body, contentType: answer.contentType };
  }
}

/** The body as a JSON object (not an array, not a scalar), or undefined; one nested deeper than any document is refused unread. */
export function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  const text = body.toString('utf8');
  if (jsonNestsDeeper(text)) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * GET an ActivityPub document (Accept: application/activity+json), signed by `signer`
 * (the instance actor when omitted), within `timeoutMs` (10 s by default), at most 1 MB; a JSON object or FetchFailed.
 * Its `id` must be on the origin it was finally served from: a server speaks only for its own objects.
 */
export async function fetchObject(url: string, opts: { signer?: Signer; timeoutMs?: number } = {}): Promise<Record<string, unknown>> {
  const signer = opts.signer ?? (await instanceSigner());
  const answer = await guardedGet(url, { accept: ACCEPT_AP, signer, timeoutMs: opts.timeoutMs });
  const doc = jsonObject(answer.body);
  if (!doc) throw new FetchFailed(answer.url, 'is not a JSON object');
  const id = typeof doc.id === 'string' ? doc.id : undefined;
  if (!id || originOf(id) === undefined || originOf(id) !== originOf(answer.url)) {
    throw new FetchFailed(answer.url, `its id ${JSON.stringify(id ?? null)} is not on the origin it was served from`);
  }
  return doc;
}

/**
 * GET a file (a remote attachment, avatar, header): unsigned, as Mastodon fetches media, at most `maxBytes`
 * (a declared Content-Length over it is refused before reading, a body that grows past it is cut off:
 * FetchTooLarge), within three times a document's time limit (files are larger), each redirect checked again.
 */
export async function fetchMedia(url: string, opts: { maxBytes: number } & OutboundRules): Promise<Buffer> {
  const answer = await guardedGet(url, { accept: '*/*', maxBytes: opts.maxBytes, timeoutMs: 3 * requestTimeoutMs, plainHttp: opts.plainHttp });
  return answer.body;
}

/** What an inbox answered a POST: its status, and the seconds its Retry-After asks us to wait (when it sent one we can read). */
export type PostAnswer = { status: number; retryAfterS?: number };

/** The largest Retry-After believed, in seconds (a day): a later date or a larger number is read as this. */
export const RETRY_AFTER_MAX_S = 86_400;

/** A Retry-After header's wait in whole seconds from `now` (delay-seconds or an HTTP date), or undefined when unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text), RETRY_AFTER_MAX_S);
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), RETRY_AFTER_MAX_S);
}

/** POST an activity to an inbox, signed by `signer`; resolves with the HTTP status (and Retry-After), throws FetchFailed on network errors. */
export async function postActivity(inbox: string, activity: Record<string, unknown>, signer: Signer, opts: { timeoutMs?: number } = {}): Promise<PostAnswer> {
  try {
    await refuseSuspended(inbox);
    const url = checkOutboundUrl(inbox);
    const body = Buffer.from(JSON.stringify(activity), 'utf8');
    const headers: Record<string, string> = { 'content-type': ACTIVITY_JSON, accept: ACCEPT_AP, 'user-agent': userAgent() };
    const signed = signRequest({ method: 'POST', url: url.href, headers, body }, signer);
    // The answer's body is not needed, only its status and Retry-After.
    const answer = await send(url, 'POST', { ...headers, ...signed, 'content-length': String(body.length) }, body, Date.now() + (opts.timeoutMs ?? requestTimeoutMs), 0);
    const retryAfterS = retryAfterSeconds(answer.retryAfter);
    return retryAfterS === undefined ? { status: answer.status } : { status: answer.status, retryAfterS };
  } catch (err) {
    throw failure(inbox, err);
  }
}
