// What a handler's `run` may answer besides a plain JSON value.
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly cookies: string[] = [],
    /** `json` bodies are serialized; `raw` bodies are strings or Buffers sent as they are. */
    readonly kind: 'json' | 'raw' = 'json',
  ) {}
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => new Reply(status, body, headers);

export const html = (body: string, status = 200, headers: Record<string, string> = {}, cookies: string[] = []) =>
  new Reply(status, body, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self' *; frame-ancestors 'none'",
    'Referrer-Policy': 'same-origin',
    ...headers,
  }, cookies, 'raw');

export const redirect = (location: string, cookies: string[] = [], status = 302) =>
  new Reply(status, '', { Location: location, 'Cache-Control': 'no-store' }, cookies, 'raw');

export const raw = (body: string | Buffer, contentType: string, status = 200, headers: Record<string, string> = {}) =>
  new Reply(status, body, { 'Content-Type': contentType, ...headers }, [], 'raw');

export const noContent = () => new Reply(200, {});
