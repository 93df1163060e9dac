// One request to the translation service. The endpoint is the operator's setting, not something a remote
// server or a client chose, yet it goes out through the federation's address guard all the same
// (lib/federation/guard.ts: the URL's form before sending, every address its name resolves to at connect
// time): public addresses only, loopback and private ones only on the local stage with FEDERATION_ALLOW_PRIVATE,
// where a LibreTranslate runs beside the stack. Mastodon lets LibreTranslate (not DeepL) reach local addresses
// everywhere (`allow_local: true`); here a deployed stage's Lambda functions have no private network to reach.
//
// Bounded as Mastodon's Request is: a time limit for the whole request and at most a megabyte of answer
// (`body_with_limit`). Redirects are not followed: an API that answers with one is misconfigured.
import http from 'node:http';
import https from 'node:https';
import { config, SOFTWARE } from '../config';
import { checkOutboundUrl, DestinationRefused, outboundLookup } from '../federation/guard';
import { unexpectedAnswer, unreachable } from './errors';

/** The most of an answer read: Mastodon's default body limit. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The time limit of one request to the service (connect, send, answer). */
export const TRANSLATION_TIMEOUT_MS = 10_000;
let timeoutMs = TRANSLATION_TIMEOUT_MS;

/** Tests: a shorter time limit, so a service that never answers need not cost ten seconds (undefined restores it). */
export function useTranslationTimeout(ms: number | undefined): void {
  timeoutMs = ms ?? TRANSLATION_TIMEOUT_MS;
}

export type ServiceRequest = {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: { data: string; contentType: string };
  /** Plain http to a public address too: the operator may point LIBRE_TRANSLATE_ENDPOINT at one. */
  plainHttp?: boolean;
};

export type ServiceAnswer = { status: number; body: Buffer };

class TooLarge extends Error {}

/** The service's status and body; a 503 HttpError (./errors.ts) when it cannot be had. */
export async function serviceRequest(rawUrl: string, req: ServiceRequest): Promise<ServiceAnswer> {
  let url: URL;
  try {
    url = checkOutboundUrl(rawUrl, { plainHttp: req.plainHttp });
  } catch (err) {
    if (err instanceof DestinationRefused) throw unreachable(`${withoutQuery(rawUrl)} ${err.reason}`);
    throw err;
  }
  try {
    return await send(url, req);
  } catch (err) {
    if (err instanceof TooLarge) throw unexpectedAnswer(`${url.origin} answered more than ${MAX_ANSWER_BYTES} bytes`);
    const reason = err instanceof DestinationRefused ? err.reason : err instanceof Error ? err.message : String(err);
    throw unreachable(`${url.origin}: ${reason}`);
  }
}

/** The URL without its query (no API key in a log line), as far as it parses. */
const withoutQuery = (raw: string) => {
  try {
    const u = new URL(raw);
    return u.origin + u.pathname;
  } catch {
    return 'the translation endpoint';
  }
};

function send(url: URL, req: ServiceRequest): Promise<ServiceAnswer> {
  const secure = url.protocol === 'https:';
  const body = req.body ? Buffer.from(req.body.data, 'utf8') : undefined;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `${SOFTWARE.name}/${SOFTWARE.version} (+${config.baseUrl}/)`,
    ...req.headers,
    ...(req.body && body ? { 'content-type': req.body.contentType, 'content-length': String(body.length) } : {}),
  };
  return new Promise((resolve, reject) => {
    const request = (secure ? https.request : http.request)(
      url,
      { method: req.method, headers, lookup: outboundLookup(url, { plainHttp: req.plainHttp }) },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
          res.destroy();
          return reject(new TooLarge());
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            res.destroy();
            reject(new TooLarge());
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('connection closed before the answer was complete'));
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(body);
  });
}
