// Sends a generated request over a raw TCP connection, byte for byte: fetch and
// node:http refuse to write most of what the suite needs (duplicate headers in a
// given order, invalid UTF-8 in the request line, broken framing). One connection
// per request (`Connection: close`), so a request that confuses the server cannot
// leak into the next one.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { connect } from 'node:net';
import { PLACEHOLDER, type FuzzRequest, type IdName, type TokenName } from './arbitraries';

export type Fixtures = { tokens: Partial<Record<TokenName, string>>; ids: Partial<Record<IdName, string>> };

export type Answer =
  | { answered: true; status: number; headers: Record<string, string[]>; body: Buffer; ms: number; streamCut: boolean }
  | { answered: false; reason: string; ms: number; received: Buffer };

/** The request with its placeholders filled in. */
export function fill(text: string, fixtures: Fixtures): string {
  return text.replace(PLACEHOLDER, (whole, kind: string, name: string) => {
    const value = kind === 'id' ? fixtures.ids[name as IdName] : fixtures.tokens[name as TokenName];
    return value ?? whole;
  });
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE']);

/** The request as bytes on the wire, in the given framing. */
export function wire(req: FuzzRequest, fixtures: Fixtures, host: string): Buffer {
  const target = fill(req.target, fixtures);
  const body = fill(req.body, fixtures);
  const headers = req.headers.map(([k, v]): [string, string] => [k, fill(v, fixtures)]);
  let method = req.method;
  let version = 'HTTP/1.1';
  let requestTarget = target;
  let nl = '\r\n';
  let hostHeader: string | undefined = host;
  const framing = req.framing;
  if (framing === 'http10') {
    version = 'HTTP/1.0';
    hostHeader = undefined;
  }
  if (framing === 'no-host') hostHeader = undefined;
  if (framing === 'bad-version') version = 'HTTP/9.9';
  if (framing === 'lowercase-method') method = method.toLowerCase();
  if (framing === 'absolute-uri') requestTarget = `http://evil.example${target.startsWith('/') ? '' : '/'}${target}`;
  if (framing === 'connect') {
    method = 'CONNECT';
    requestTarget = 'evil.example:443';
  }
  if (framing === 'lf-only') nl = '\n';

  const lines: string[] = [framing === 'garbage-line' ? `\x16\x03\x01 ${target} \xff` : `${method} ${requestTarget} ${version}`];
  if (hostHeader !== undefined) lines.push(`Host: ${hostHeader}`);
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  if (framing === 'header-no-colon') lines.push('X-No-Colon');
  if (framing === 'space-before-colon') lines.push('X-Space : yes');
  if (framing === 'obs-fold') lines.push('X-Folded: first', ' continued');
  if (framing === 'nul-in-header') lines.push('X-Nul: a\x00b');

  let payload = body;
  if (framing === 'chunked' || framing === 'bad-chunked' || framing === 'cl-and-te') {
    lines.push('Transfer-Encoding: chunked');
    if (framing === 'cl-and-te') lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
    payload = framing === 'bad-chunked'
      ? `zz${nl}${body}${nl}0${nl}${nl}`
      : `${body.length > 0 ? `${body.length.toString(16)}${nl}${body}${nl}` : ''}0${nl}${nl}`;
  } else if (framing === 'short-content-length' && body.length > 1) {
    lines.push(`Content-Length: ${Math.floor(body.length / 2)}`);
  } else if (body.length > 0 || !BODYLESS.has(method.toUpperCase())) {
    lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
  }
  lines.push('Connection: close');
  return Buffer.from(`${lines.join(nl)}${nl}${nl}${payload}`, 'latin1');
}

/** Splits a raw HTTP/1.1 response into status, headers and (de-chunked) body. */
export function parseResponse(raw: Buffer): { status: number; headers: Record<string, string[]>; body: Buffer } | undefined {
  // Interim answers (100 Continue) come before the response.
  while (/^HTTP\/\d\.\d 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) {
    const interimEnd = raw.indexOf('\r\n\r\n');
    if (interimEnd < 0) return undefined;
    raw = raw.subarray(interimEnd + 4);
  }
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/\d\.\d (\d{3})/.exec(head[0] ?? '');
  if (!status) return undefined;
  const headers: Record<string, string[]> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(i + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if ((headers['transfer-encoding'] ?? []).some((v) => /chunked/i.test(v))) body = dechunk(body);
  // A compressed answer is read as a client reads it; one that does not decompress is left as it came, and then
  // fails the checks on its body.
  const encoding = (headers['content-encoding'] ?? [])[0]?.toLowerCase();
  if (body.length > 0 && (encoding === 'br' || encoding === 'gzip')) {
    try {
      body = encoding === 'br' ? brotliDecompressSync(body) : gunzipSync(body);
    } catch {
      // left compressed
    }
  }
  return { status: Number(status[1]), headers, body };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

export type Target = { host: string; port: number };

/**
 * Sends the bytes and reads the answer to the end. For a stream (`hangUpOnStream`)
 * the answer is whole once its head shows a 2xx/3xx: the rest would last minutes.
 */
export function send(target: Target, bytes: Buffer, opts: { hangUpOnStream: boolean; timeoutMs: number }): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: target.host, port: target.port });
    const finish = (reason?: string, streamCut = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const received = Buffer.concat(chunks);
      const parsed = parseResponse(received);
      const ms = Date.now() - started;
      // A status line and headers are an answer even if the connection then broke (a reset after a
      // refusal): a body cut short by it fails the checks on the body.
      if (parsed) {
        resolve({ answered: true, ...parsed, ms, streamCut });
      } else {
        resolve({ answered: false, reason: reason ?? (received.length === 0 ? 'connection closed without a response' : 'unparseable response'), ms, received });
      }
    };
    const timer = setTimeout(() => finish(`no complete response within ${opts.timeoutMs / 1000} s`), opts.timeoutMs);
    // Set once the final response's head has arrived (not a 100 Continue).
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parseResponse(Buffer.concat(chunks));
      answered = parsed !== undefined;
      if (opts.hangUpOnStream && parsed && parsed.status < 400 && (parsed.headers['content-type'] ?? []).some((v) => v.startsWith('text/event-stream'))) {
        finish('stream', true);
      }
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    // Written a slice at a time, and no further once an answer arrives: a server may refuse a big
    // request before reading all of it, and close. Slices past the first 64 KB wait a moment for
    // that answer, which a write into the closed connection would otherwise reset away.
    const slice = 16 * 1024;
    const writeFrom = (at: number) => {
      if (at >= bytes.length || settled || answered) return;
      const more = socket.write(bytes.subarray(at, at + slice));
      const next = () => writeFrom(at + slice);
      if (!more) socket.once('drain', next);
      else if (at + slice >= 64 * 1024) setTimeout(next, 1);
      else next();
    };
    writeFrom(0);
  });
}

/** Runs `work` over `items` with at most `concurrency` at a time. */
export async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}
