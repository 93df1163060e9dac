// Compressed answers: JSON, ActivityPub and HTML bodies of at least COMPRESS_MIN_BYTES are sent with brotli or gzip
// when the client accepts it (`Accept-Encoding`, q-values honoured; brotli preferred at equal weight). Done by the
// function itself rather than left to a CDN in front: an API answer is personal and never cached at the edge, and
// CloudFront compresses only what its cache policy may cache. The local stack passes the bytes through as API
// Gateway does, so a client meets the same answer locally as deployed.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Below this, a compressed body saves less than the header and a round of CPU cost (CloudFront's floor too). */
export const COMPRESS_MIN_BYTES = 1_024;

/** Brotli's quality for answers made per request: close to gzip's speed, smaller output (11 is for static files). */
const BROTLI_QUALITY = 4;

export type Encoding = 'br' | 'gzip';

const COMPRESSIBLE = /^(application\/([a-z.+-]*json|xml|javascript|xhtml\+xml)|text\/|image\/svg\+xml)/i;

/** The encoding to answer with for `accept` (an Accept-Encoding header), or none. */
export function chosenEncoding(accept: string | undefined): Encoding | undefined {
  if (!accept) return undefined;
  const weights = new Map<string, number>();
  for (const part of accept.slice(0, 512).split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    // A weight that is not one (RFC 9110's qvalue: 0 to 1, three decimals at most) excludes the coding.
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2);
    const weight = q === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(q) ? Number(q) : 0;
    weights.set(name, weight);
  }
  const weightOf = (name: Encoding) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/** `body` compressed with `encoding`. */
export function compressed(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

type Answer = { statusCode?: number; headers?: Record<string, string | number | boolean>; body?: string; isBase64Encoded?: boolean };

const headerOf = (headers: Record<string, string | number | boolean>, name: string): [string, string] | undefined => {
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
  return found ? [found[0], String(found[1])] : undefined;
};

/**
 * The answer compressed for a client that sent `accept`, when it is worth it: a text body (not already encoded or
 * binary) of a compressible type, at least COMPRESS_MIN_BYTES long. Every compressible answer says `Vary:
 * Accept-Encoding`, compressed or not, so that no cache hands one client's encoding to another.
 */
export function compressAnswer<R extends Answer>(answer: R, accept: string | undefined): R {
  const headers = answer.headers ?? {};
  const type = headerOf(headers, 'content-type')?.[1] ?? '';
  if (!COMPRESSIBLE.test(type) || answer.isBase64Encoded || headerOf(headers, 'content-encoding')) return answer;
  const vary = headerOf(headers, 'vary');
  const varied = { ...headers };
  if (vary) {
    if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary[1])) varied[vary[0]] = `${vary[1]}, Accept-Encoding`;
  } else varied.Vary = 'Accept-Encoding';
  const body = Buffer.from(answer.body ?? '', 'utf8');
  const encoding = chosenEncoding(accept);
  if (!encoding || body.length < COMPRESS_MIN_BYTES || answer.statusCode === 204 || answer.statusCode === 304) return { ...answer, headers: varied };
  return {
    ...answer,
    headers: { ...varied, 'Content-Encoding': encoding },
    body: compressed(body, encoding).toString('base64'),
    isBase64Encoded: true,
  };
}
