// Lambda response streaming off AWS: what the Lambda Node.js runtime and a function
// URL in RESPONSE_STREAM mode do around a streamed handler, for the local stack
// (infra/local/stream-front.ts runs it in a worker thread) and for the tests.
//
// - the runtime's globals: `awslambda.streamifyResponse` marks a handler as streamed;
//   `awslambda.HttpResponseStream.from` makes the first write send a metadata prelude
//   (JSON with statusCode, headers, cookies, then 8 NUL bytes) ahead of the body;
// - the response stream the handler writes to, a Node writable that hands every
//   chunk to a sink as soon as it is written;
// - the function URL's side: it reads the prelude off the stream and answers with
//   its status and headers, then relays the body.
//
// The same handler bundle runs unchanged here and in AWS: nothing in it knows where it runs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { z } from 'zod';

/** The content type HttpResponseStream.from() gives the stream: the body starts with the prelude. */
export const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = new Uint8Array(8);
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const streamed = new WeakSet<object>();

/** Receives what a handler writes, in order. */
export type StreamSink = {
  /** The first write (or the end, without one): the stream's content type is fixed from here. */
  start(contentType: string): void;
  data(chunk: Uint8Array): void;
  end(): void;
};

/** The response stream a streamed handler receives (in AWS, a chunked HTTP request to the runtime API). */
export class LocalResponseStream extends Writable {
  /** Set by HttpResponseStream.from(): writes the prelude right before the first chunk. */
  _onBeforeFirstWrite: ((write: (chunk: string | Uint8Array) => void) => void) | undefined;
  private contentType = DEFAULT_CONTENT_TYPE;
  private begun = false;

  constructor(private readonly sink: StreamSink) {
    super();
  }

  setContentType(contentType: string): void {
    if (this.begun) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }

  override write(chunk: unknown, callback?: (error: Error | null | undefined) => void): boolean;
  override write(chunk: unknown, encoding: BufferEncoding, callback?: (error: Error | null | undefined) => void): boolean;
  override write(
    chunk: unknown,
    encoding?: BufferEncoding | ((error: Error | null | undefined) => void),
    callback?: (error: Error | null | undefined) => void,
  ): boolean {
    // As the runtime does: anything but text or bytes is sent as JSON.
    const data = typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : JSON.stringify(chunk);
    if (!this.begun && !this.destroyed) {
      this.begin();
      this._onBeforeFirstWrite?.((first) => super.write(first));
    }
    return typeof encoding === 'function' ? super.write(data, encoding) : super.write(data, encoding ?? 'utf8', callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (chunk.length > 0) this.sink.data(new Uint8Array(chunk));
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.begin();
    this.sink.end();
    done();
  }

  private begin() {
    if (this.begun) return;
    this.begun = true;
    this.sink.start(this.contentType);
  }
}

/** Installs the runtime's `awslambda` globals (as the Lambda Node.js runtime does before loading a handler). */
export function installAwslambda(): void {
  const awslambda = {
    streamifyResponse<H extends object>(handler: H): H {
      streamed.add(handler);
      return handler;
    },
    HttpResponseStream: {
      from(stream: LocalResponseStream, prelude: Record<string, unknown>): LocalResponseStream {
        stream.setContentType(PRELUDE_CONTENT_TYPE);
        const json = JSON.stringify(prelude);
        stream._onBeforeFirstWrite = (write) => {
          write(json);
          write(DELIMITER);
        };
        return stream;
      },
    },
  };
  Object.defineProperty(globalThis, 'awslambda', { value: awslambda, configurable: true, writable: true, enumerable: false });
}

export const isStreamedHandler = (handler: unknown): boolean =>
  typeof handler === 'function' && streamed.has(handler);

export type StreamedHandler = (event: APIGatewayProxyEventV2, stream: LocalResponseStream, context: Context) => unknown;

/** A Lambda context for one invocation, with the time limit the function has. */
export function lambdaContext(opts: { functionName: string; timeoutMs: number; requestId?: string; memoryMb?: number; region?: string }): Context {
  const deadline = Date.now() + opts.timeoutMs;
  const region = opts.region ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: opts.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${opts.functionName}`,
    memoryLimitInMB: String(opts.memoryMb ?? 1024),
    awsRequestId: opts.requestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${opts.functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export type Invocation = {
  /** The client went away: the response stream is destroyed under the handler. */
  abort(): void;
  /** Settles when the handler has returned and its stream has ended; rejects as the runtime would fail the invocation. */
  settled: Promise<void>;
};

/** Runs a streamed handler as the runtime does: `handler(event, responseStream, context)`, awaited, its stream ended. */
export function invokeStreamed(handler: unknown, event: APIGatewayProxyEventV2, context: Context, sink: StreamSink): Invocation {
  const stream = new LocalResponseStream(sink);
  // An error on the stream (a write after the client left) is the handler's to notice, not a crash here.
  stream.on('error', () => undefined);
  const settled = (async () => {
    if (typeof handler !== 'function' || !isStreamedHandler(handler)) {
      throw new Error('the handler is not wrapped in awslambda.streamifyResponse');
    }
    const result: unknown = handler(event, stream, context);
    if (!isThenable(result)) throw new Error('Streaming does not support non-async handlers.');
    await result;
    if (stream.destroyed) return;
    if (!stream.writableEnded) throw new Error('Response stream is not finished.');
    if (!stream.writableFinished) await new Promise<void>((resolve) => stream.once('finish', resolve).once('close', resolve));
  })();
  return { abort: () => stream.destroy(), settled };
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof Reflect.get(value, 'then') === 'function';

const preludeSchema = z.object({
  statusCode: z.number().int().min(100).max(599).default(200),
  headers: z.record(z.union([z.string(), z.number(), z.boolean()]).transform(String)).default({}),
  cookies: z.array(z.string()).default([]),
});

export type ResponseHead = { statusCode: number; headers: Record<string, string>; cookies: string[] };

/**
 * The function URL's side of a streamed response: turns what the handler writes
 * (sink calls) into an HTTP status, headers and body chunks.
 */
export class FunctionUrlResponse implements StreamSink {
  private mode: 'waiting' | 'prelude' | 'body' = 'waiting';
  private pending = Buffer.alloc(0);

  constructor(private readonly out: { head(head: ResponseHead): void; body(chunk: Uint8Array): void; end(): void }) {}

  start(contentType: string): void {
    if (contentType === PRELUDE_CONTENT_TYPE) {
      this.mode = 'prelude';
      return;
    }
    this.mode = 'body';
    this.out.head({ statusCode: 200, headers: { 'content-type': contentType }, cookies: [] });
  }

  data(chunk: Uint8Array): void {
    if (this.mode === 'body') {
      this.out.body(chunk);
      return;
    }
    this.pending = Buffer.concat([this.pending, chunk]);
    // JSON has no NUL byte: the first one starts the delimiter.
    const at = this.pending.indexOf(0);
    if (at < 0 || this.pending.length < at + DELIMITER.length) return;
    if (!this.pending.subarray(at, at + DELIMITER.length).every((b) => b === 0)) throw new Error('malformed response prelude');
    const prelude = preludeSchema.parse(JSON.parse(this.pending.subarray(0, at).toString('utf8')));
    const rest = this.pending.subarray(at + DELIMITER.length);
    this.pending = Buffer.alloc(0);
    this.mode = 'body';
    this.out.head(prelude);
    if (rest.length > 0) this.out.body(new Uint8Array(rest));
  }

  end(): void {
    if (this.mode !== 'body') throw new Error('the response ended before its metadata prelude was complete');
    this.out.end();
  }
}

const TEXT_TYPES = /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript)|[^;]*\+(json|xml))/i;

/** The event a function URL delivers (payload format 2.0) for an HTTP request. */
export function functionUrlEvent(req: IncomingMessage, body: Buffer, opts: { requestId?: string } = {}): APIGatewayProxyEventV2 {
  const url = requestTarget(req.url);
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    const value = req.rawHeaders[i + 1] ?? '';
    // As the HTTP API's payload 2.0: cookies come as their own list, not as a header.
    if (name === 'cookie') {
      cookies = [...(cookies ?? []), ...value.split(/;\s*/).filter(Boolean)];
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  // As a function URL adds them.
  headers['x-forwarded-for'] ??= sourceIp;
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-forwarded-port'] ??= String(req.socket.localPort ?? '');
  const host = headers.host ?? 'localhost';
  const now = new Date();
  const text = TEXT_TYPES.test(headers['content-type'] ?? '');
  const method = req.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies ? { cookies } : {}),
    headers,
    ...(url.search ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: opts.requestId ?? randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

/**
 * The path and query of a request target. `new URL(target, base)` would read a path
 * that starts with `//` as a host name; an absolute-form target keeps its path.
 */
export function requestTarget(target = '/'): { pathname: string; search: string; searchParams: URLSearchParams } {
  const at = target.indexOf('?');
  let pathname = at < 0 ? target : target.slice(0, at);
  const search = at < 0 ? '' : target.slice(at);
  if (/^https?:\/\//i.test(pathname)) pathname = pathname.replace(/^https?:\/\/[^/]*/i, '') || '/';
  return { pathname, search: search === '?' ? '' : search, searchParams: new URLSearchParams(search) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
/** `12/Mar/2020:19:03:58 +0000`, the time format of the event's requestContext. */
const clfTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
