// What the stage's one origin tells a function about the viewer. In AWS every request comes through the
// stage's CloudFront distribution (infra/cdn.yml); on the local stack through its front
// (infra/local/stream-front.ts), which does the same. API Gateway and the function URLs see the
// distribution's address and their own host name, so the distribution's viewer-request function passes
// the viewer's address and the host it asked for in two headers, and adds the origin secret to every
// request it sends on. Those two headers are believed only beside the secret: a request sent straight to
// an execute-api endpoint or a function URL, with any headers, keeps its own address (rate limits and IP
// rules hold) and its own Host (a signature made for another server stays another server's).
import { timingSafeEqual } from 'node:crypto';
import { secrets } from './secrets';

export const ORIGIN_SECRET_HEADER = 'x-tootless-origin';
export const VIEWER_IP_HEADER = 'x-tootless-viewer-ip';
export const VIEWER_HOST_HEADER = 'x-tootless-viewer-host';

type Headers = Record<string, string | undefined> | null | undefined;

const header = (headers: Headers, name: string): string | undefined => {
  if (!headers) return undefined;
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/** Whether the request came through the stage's origin: it carries the origin secret (none configured: never). */
export function throughOrigin(headers: Headers): boolean {
  const expected = secrets().originSecret;
  const given = header(headers, ORIGIN_SECRET_HEADER);
  if (!expected || given === undefined) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The viewer's address and the host it asked for: the origin's word for them when it came through it, else the connection's. */
export function viewerOf(headers: Headers, sourceIp: string | null | undefined): { ip: string; host: string | undefined } {
  const own = { ip: sourceIp ?? '', host: header(headers, 'host') };
  if (!throughOrigin(headers)) return own;
  return { ip: header(headers, VIEWER_IP_HEADER) || own.ip, host: header(headers, VIEWER_HOST_HEADER) || own.host };
}
