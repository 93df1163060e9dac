// The front of the local stack: every request from outside reaches a function through here, as it
// reaches API Gateway, a function URL, EventBridge or Lambda's own API in AWS, and every invocation
// runs in the one runner (./function-pool.ts), except those of the functions that stream their
// response. It serves
//   - the public HTTP port: the HTTP API's routes (./http-api.ts: payload 2.0, the route
//     keys, API Gateway's payload and header limits, CORS), the `streamRoutes` of the functions
//     whose `url` is in RESPONSE_STREAM mode (./lambda-stream.ts: each chunk reaches the client as
//     it is written, which serverless offline cannot do), media under /system/ as the
//     distribution serves the bucket, and the WebSocket API's handshakes at /api/v1/streaming;
//   - the WebSocket port: the WebSocket API's Management API (./websocket-api.ts), and
//     handshakes at any path, as serverless offline's WebSocket port took them;
//   - the Lambda invoke port: Lambda's Invoke API (./lambda-api.ts), which the queue adapter
//     and the tests call;
//   - the service's schedules (./schedule.ts).
// serverless offline is what starts the local stack (`serverless offline start`: serverless-esbuild's
// build and watch, then this plugin's hooks). It is handed the service without the events this
// front serves, so it starts no server or timer for them and runs no function itself; its invoke
// endpoint, which it always starts, moves to an internal port nobody calls.
// Loaded by the serverless plugin infra/local/stream-offline.cjs.
import { randomUUID } from 'node:crypto';
import { Agent, STATUS_CODES, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { LAMBDA_REQUEST_PAYLOAD_BYTES, LAMBDA_RESPONSE_PAYLOAD_BYTES, MAX_BINARY_BODY_BYTES } from '../../lib/http/limits';
import { ORIGIN_SECRET_HEADER, VIEWER_HOST_HEADER, VIEWER_IP_HEADER } from '../../lib/origin';
import { freePort } from './emulators';
import { FunctionPool } from './function-pool';
import { HttpApiRouter, httpAnswer, httpApiEvent, overResponseLimit, httpApiRoutes, withCors, writeAnswer, NOT_FOUND, type RouteMatch } from './http-api';
import { lambdaApi, type LambdaApi } from './lambda-api';
import { FunctionUrlResponse, functionUrlEvent, requestTarget } from './lambda-stream';
import { LocalFunctions, bundleRoot, functionSchema, localFunction, type LocalFunction, type Say, type Serverless } from './local-functions';
import { MAX_DRAIN_BYTES, readBoundedBody } from './bounded-body';
import { answerPreflight, httpApiCors, isPreflight, type HttpApiCors } from './preflight';
import { scheduledEvents, startSchedule, type Scheduler } from './schedule';
import type { FromWorker, ToWorker } from './stream-worker';
import { WebSocketApi } from './websocket-api';

export type { LocalFunction, Serverless };

/** Lambda's limit on an invocation's request payload. */
const MAX_REQUEST_BYTES = LAMBDA_REQUEST_PAYLOAD_BYTES;

/**
 * The largest body that fits in that payload (lib/http/limits.ts, the numbers the
 * functions and the instance's announced upload limit come from). API Gateway passes text bodies
 * as they are and every other body base64-encoded (4 bytes for 3): a non-text body may be at most
 * MAX_BINARY_BODY_BYTES (4,601,856), what fits beside the largest event envelope API Gateway lets
 * through. That is the announced file limit (MAX_UPLOAD_BYTES, 4,519,936) plus room for the
 * multipart framing and a margin (81,920 bytes), so a file at the limit gets through with its
 * form; and since the envelope is an upper bound, every body AWS would refuse is refused here too.
 */
const maxBodyBytes = (contentType: string | undefined) =>
  /^\s*(text\/|application\/(json|x-www-form-urlencoded|[\w.+-]*\+json|xml))/i.test(contentType ?? '')
    ? MAX_REQUEST_BYTES
    : MAX_BINARY_BODY_BYTES;

/** API Gateway HTTP API's limit on the request line and headers together (10,240 bytes); Node's default is 16 KB. */
export const MAX_HEADER_BYTES = 10 * 1024;

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  HPE_URI_TOO_LONG: [414, 'Request URI too long'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Request entity too large'],
};

/**
 * A request Node's parser refuses before any handler sees it (an oversized request
 * line or header block, a malformed request line, bad chunked framing) is answered
 * as the API answers every refusal, `{"error": ...}`, instead of Node's bare status
 * line. Listening for `clientError` also keeps the server's default of destroying
 * the socket from being the only answer.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // Node's parser reports every later chunk of a refused connection again: it was answered once.
  if (answered.has(socket)) return;
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad request'];
  answerOnSocket(socket, status, message);
}

const answered = new WeakSet<Duplex>();

/** Writes a whole JSON error answer on a socket no request object owns, and closes it. */
function answerOnSocket(socket: Duplex, status: number, message: string): void {
  answered.add(socket);
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      // So that a web client can read why it was refused.
      'Access-Control-Allow-Origin: *\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // What the client still sends (a body behind refused headers) is read and dropped for a
  // while: closing on unread data would reset the connection before the answer is read.
  let dropped = 0;
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > MAX_DRAIN_BYTES) socket.destroy();
  });
  socket.resume();
  setTimeout(() => socket.destroy(), 10_000).unref();
}

/** LOCAL_FUNCTION_INSTANCES: how many warm instances each function may have (3 unless set). */
export function instanceLimit(raw: string | undefined): number {
  const limit = raw === undefined || raw === '' ? 3 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`LOCAL_FUNCTION_INSTANCES must be a whole number from 1, not ${raw}`);
  return limit;
}

const offlineSchema = z.object({
  httpPort: z.union([z.number(), z.string()]).optional(),
  websocketPort: z.union([z.number(), z.string()]).optional(),
  lambdaPort: z.union([z.number(), z.string()]).optional(),
  host: z.string().optional(),
  location: z.string().optional(),
}).passthrough();

type Route = { method: string; path: string };

type StreamedFunction = LocalFunction & { routes: Route[] };

/** The functions served with response streaming. */
function streamedFunctions(serverless: Serverless, location: string, say: Say): StreamedFunction[] {
  const root = bundleRoot(serverless, location);
  const out: StreamedFunction[] = [];
  for (const key of serverless.service.getAllFunctions()) {
    const fn = functionSchema.parse(serverless.service.getFunction(key));
    if (typeof fn.url !== 'object' || fn.url.invokeMode !== 'RESPONSE_STREAM') continue;
    const routes = (fn.streamRoutes ?? []).map((line): Route => {
      const [method = '', path = ''] = line.trim().split(/\s+/);
      return { method: method.toUpperCase(), path };
    });
    if (routes.length === 0) {
      say('warning', `${key} streams its response but lists no streamRoutes: the local stack cannot reach it`);
      continue;
    }
    out.push({ ...localFunction(serverless, root, key, fn), routes });
  }
  return out;
}

/** One response being streamed to a client. */
class Call {
  private finished = false;
  private readonly timer: NodeJS.Timeout;
  private readonly url: FunctionUrlResponse;

  constructor(
    readonly id: string,
    private readonly fn: StreamedFunction,
    private readonly res: ServerResponse,
    private readonly send: (msg: ToWorker) => void,
    private readonly done: (call: Call) => void,
    private readonly say: Say,
  ) {
    this.url = new FunctionUrlResponse({
      head: ({ statusCode, headers, cookies }) => {
        res.writeHead(statusCode, { ...headers, ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) });
        res.flushHeaders();
      },
      body: (chunk) => res.write(chunk),
      end: () => res.end(),
    });
    // Lambda stops the invocation at its timeout, and the function URL cuts the response.
    this.timer = setTimeout(() => {
      this.say('error', `${fn.key}: Task timed out after ${(fn.timeoutMs / 1000).toFixed(2)} seconds`);
      this.send({ t: 'abort', id });
      this.fail();
    }, fn.timeoutMs);
    res.on('close', () => {
      if (!this.finished && !res.writableFinished) this.send({ t: 'abort', id });
    });
  }

  receive(msg: FromWorker): void {
    if (this.finished) return;
    try {
      if (msg.t === 'start') this.url.start(msg.contentType);
      else if (msg.t === 'data') this.url.data(msg.chunk);
      else if (msg.t === 'end') this.url.end();
      else if (msg.t === 'settled') {
        if (msg.error) this.say('error', `${this.fn.key}: ${msg.error}`);
        if (!this.res.writableEnded) this.fail();
        else this.close();
      }
    } catch (err) {
      this.say('error', `${this.fn.key}: ${err instanceof Error ? err.message : String(err)}`);
      this.fail();
    }
  }

  /** As a function URL whose invocation failed: 502 before the first byte, a cut response after it. */
  fail(): void {
    if (this.finished) return;
    if (!this.res.headersSent) {
      this.res.writeHead(502, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(JSON.stringify({ Message: 'Internal Server Error' }));
    } else if (!this.res.writableEnded) {
      this.res.destroy();
    }
    this.close();
  }

  private close() {
    this.finished = true;
    clearTimeout(this.timer);
    this.done(this);
  }
}

/** A streamed function's worker thread; any number of calls run in it at once. */
class FunctionWorker {
  private readonly worker: Worker;
  private readonly calls = new Map<string, Call>();
  private retired = false;

  constructor(
    readonly fn: StreamedFunction,
    private readonly gone: (w: FunctionWorker) => void,
    private readonly say: Say,
  ) {
    this.worker = new Worker(new URL('./stream-worker.mjs', import.meta.url), { env: fn.env, workerData: fn.setup });
    this.worker.on('message', (msg: FromWorker) => this.calls.get(msg.id)?.receive(msg));
    // A crash takes every call of this worker with it, as it would take the Lambda sandbox.
    this.worker.on('error', (err) => {
      say('error', `${fn.key}: ${err.stack ?? err.message}`);
      this.drop();
    });
    this.worker.on('exit', () => this.drop());
  }

  invoke(event: ReturnType<typeof functionUrlEvent>, res: ServerResponse): void {
    const id = event.requestContext.requestId;
    const call = new Call(id, this.fn, res, (msg) => this.worker.postMessage(msg), (c) => this.finish(c), this.say);
    this.calls.set(id, call);
    this.worker.postMessage({ t: 'invoke', id, event, timeoutMs: this.fn.timeoutMs } satisfies ToWorker);
  }

  /** The bundle was rebuilt: no new calls here, and the thread ends once its open streams have. */
  retire(): void {
    this.retired = true;
    if (this.calls.size === 0) void this.worker.terminate();
  }

  async stop(): Promise<void> {
    this.retired = true;
    await this.worker.terminate();
  }

  private finish(call: Call) {
    this.calls.delete(call.id);
    if (this.retired && this.calls.size === 0) void this.worker.terminate();
  }

  private drop() {
    for (const call of [...this.calls.values()]) call.fail();
    this.calls.clear();
    this.gone(this);
  }
}

// Hop-by-hop headers belong to each connection, not to the request passed on.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

const withoutHopByHop = (raw: string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) out.push(name, raw[i + 1] ?? '');
  }
  return out;
};

const jsonError = (res: ServerResponse, status: number, message: string) =>
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(JSON.stringify({ Message: message }));

/**
 * As the API answers a refusal, for requests refused before they reach a function.
 * The connection stays open while the rest of the body is read and dropped, so a
 * client still sending it sees the answer rather than a reset.
 */
function apiError(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    })
    .end(body);
}


/**
 * Reads a request's whole body, up to `limit` bytes, then hands it on; a larger one
 * is answered 413. The refusal waits for the body to end, so that a client still
 * sending it reads the answer instead of a reset connection.
 */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number, then: (body: Buffer) => void): void {
  const tooLarge = () => apiError(res, 413, 'Request entity too large');
  readBoundedBody(req, res, limit, tooLarge, (body) => (body ? then(body) : tooLarge()));
}

/** The paths of the WebSocket API on the one origin, as the distribution maps them to the API's stage (infra/cdn.yml). */
const WEBSOCKET_PATHS = new Set(['/api/v1/streaming', '/api/v1/streaming/']);

/**
 * As the distribution's viewer-request function and its origin header (infra/cdn.yml): the viewer's address
 * and host, and the origin secret, replace whatever the client sent under those names.
 */
export function withOriginHeaders(rawHeaders: string[], viewer: { ip: string; host: string | undefined }, secret: string): string[] {
  const ours = new Set([ORIGIN_SECRET_HEADER, VIEWER_IP_HEADER, VIEWER_HOST_HEADER]);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (!ours.has(rawHeaders[i]!.toLowerCase())) out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  out.push(VIEWER_IP_HEADER, viewer.ip, VIEWER_HOST_HEADER, viewer.host ?? '');
  if (secret) out.push(ORIGIN_SECRET_HEADER, secret);
  return out;
}

/**
 * The bucket key a `/system/<key>` path names, as the distribution's function maps it; undefined for a path
 * it refuses (nothing under federation/, no dot segments, no empty key).
 */
export function mediaKeyOf(path: string): string | undefined {
  if (!path.startsWith('/system/')) return undefined;
  const key = path.slice('/system/'.length);
  if (key === '' || key.startsWith('federation/') || key.split('/').some((seg) => seg === '..' || seg === '.')) return undefined;
  return key;
}

/** What this front serves itself, taken out of what serverless offline is handed. */
const SERVED_EVENTS = ['httpApi', 'websocket', 'schedule'];

export class StreamFront {
  private functions: StreamedFunction[] = [];
  private publicPort = 3000;
  private websocketPort = 3001;
  private lambdaPort = 3002;
  private host = 'localhost';
  private servers: Server[] = [];
  private readonly workers = new Map<string, FunctionWorker>();
  private readonly agent = new Agent({ keepAlive: true });
  private router = new HttpApiRouter([]);
  private cors: HttpApiCors | undefined;
  private local: LocalFunctions | undefined;
  private webSocketRoutes = new Map<string, string>();
  private schedules: ReturnType<typeof scheduledEvents> = [];
  private readonly pool: FunctionPool;
  private readonly webSocket: WebSocketApi;
  private readonly lambda: LambdaApi;
  private scheduler: Scheduler | undefined;

  constructor(
    private readonly serverless: Serverless,
    private readonly options: Record<string, unknown>,
    private readonly say: Say,
  ) {
    this.pool = new FunctionPool(instanceLimit(process.env.LOCAL_FUNCTION_INSTANCES), say);
    const invoke = (fn: LocalFunction, event: unknown) => this.pool.invoke(fn, event);
    this.webSocket = new WebSocketApi({
      route: (routeKey) => {
        const key = this.webSocketRoutes.get(routeKey);
        return key === undefined ? undefined : this.local?.byKey(key);
      },
      invoke,
      say,
      routeSelectionExpression: serverless.service.provider.websocketsApiRouteSelectionExpression,
    });
    this.lambda = lambdaApi({ find: (name) => this.local?.byName(name), invoke, say });
  }

  /**
   * Before serverless offline starts: reads the routes, streamed functions, WebSocket routes and schedules,
   * takes them out of the service serverless offline is handed, and moves its invoke endpoint to an internal port.
   */
  async prepare(): Promise<void> {
    const service = this.serverless.service;
    const custom = (service.custom ??= {});
    const offline = offlineSchema.parse(custom['serverless-offline'] ?? {});
    this.functions = streamedFunctions(this.serverless, offline.location ?? '', this.say);
    this.local = new LocalFunctions(this.serverless, bundleRoot(this.serverless, offline.location ?? ''));
    this.router = new HttpApiRouter(httpApiRoutes(service));
    this.cors = httpApiCors(service.provider);
    this.webSocketRoutes = webSocketRoutesOf(service);
    this.schedules = scheduledEvents(service.getAllFunctions(), (key) => functionSchema.parse(service.getFunction(key)));
    for (const key of service.getAllFunctions()) {
      const fn = service.getFunction(key) as { events?: unknown[] } | undefined;
      if (fn && Array.isArray(fn.events)) fn.events = fn.events.filter((e) => !(typeof e === 'object' && e !== null && SERVED_EVENTS.some((k) => k in e)));
    }
    this.publicPort = Number(this.options.httpPort ?? offline.httpPort ?? 3000);
    this.host = String(this.options.host ?? offline.host ?? 'localhost');
    this.websocketPort = Number(this.options.websocketPort ?? offline.websocketPort ?? 3001);
    this.lambdaPort = Number(this.options.lambdaPort ?? offline.lambdaPort ?? 3002);
    // serverless offline's own ports, none of which faces anyone now.
    const [httpPort, websocketPort, lambdaPort] = [await freePort(), await freePort(), await freePort()];
    custom['serverless-offline'] = { ...offline, httpPort, websocketPort, lambdaPort };
    // Command-line options win over custom settings in serverless-offline.
    for (const [name, port] of Object.entries({ httpPort, websocketPort, lambdaPort })) if (this.options[name] !== undefined) this.options[name] = port;
  }

  /** Once serverless offline is up: takes the public, WebSocket and invoke ports, and starts the schedules. */
  async listen(): Promise<void> {
    if (this.servers.length > 0) return;
    // Node would answer an HTTP/1.1 request without Host with a bare 400; route() answers it as the API does.
    const api = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, (req, res) => this.route(req, res));
    // Node closes an idle kept-alive connection after 5 s. This process also runs the messages to and from every function
    // instance, so its event loop can stall; when it comes back, the 5 s timer fires before the request that reached
    // the socket meanwhile is read, and the client sees "other side closed" (two e2e failures in one full run). A
    // client reuses a connection for a little less than the timeout the server announces (Keep-Alive: timeout=65),
    // so a long one makes the race rare.
    api.keepAliveTimeout = 65_000;
    // Node answers an Expect it does not know with a bare 417, and a CONNECT by closing the socket.
    api.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
      readBody(req, res, MAX_REQUEST_BYTES, () => apiError(res, 417, 'Expectation failed')));
    api.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    const management = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => this.webSocket.management(req, res));
    management.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.webSocket.upgrade(req, socket, head));
    const invoke = createServer((req, res) => this.lambda.handle(req, res));
    for (const server of [api, management, invoke]) {
      server.on('clientError', answerClientError);
      server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerOnSocket(socket, 405, 'Method not allowed'));
    }
    const ports: [Server, number][] = [[api, this.publicPort], [management, this.websocketPort], [invoke, this.lambdaPort]];
    for (const [server, port] of ports) {
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(port, this.host, () => done());
      });
      this.servers.push(server);
    }
    const local = this.local;
    if (local) {
      const jobs = this.schedules.filter((s) => s.enabled).flatMap((s) => {
        const fn = local.byKey(s.key);
        return fn ? [{ fn, rule: s.rule, ...(s.input === undefined ? {} : { input: s.input }) }] : [];
      });
      this.scheduler = startSchedule({ jobs, invoke: (fn, event) => this.pool.invoke(fn, event), say: this.say, region: this.serverless.service.provider.region ?? 'us-east-1' });
    }
    const routes = this.functions.flatMap((f) => f.routes.map((r) => `${r.method} ${r.path}`));
    this.say('notice', `HTTP API on http://${this.host}:${this.publicPort} (${this.router.size} routes; streamed: ${routes.join(', ') || 'none'})`);
    this.say('notice', `WebSocket API on ws://${this.host}:${this.websocketPort}, Lambda invoke on http://${this.host}:${this.lambdaPort}`);
  }

  /** serverless-esbuild rebuilt the bundles: later calls load them afresh. */
  reload(): void {
    for (const worker of this.workers.values()) worker.retire();
    this.workers.clear();
    this.pool.reload();
    this.local?.forget();
  }

  async close(): Promise<void> {
    this.scheduler?.stop();
    this.lambda.close();
    await this.webSocket.close();
    const servers = this.servers;
    this.servers = [];
    await Promise.all(
      servers.map((server) => {
        server.closeAllConnections();
        return new Promise<void>((done) => server.close(() => done()));
      }),
    );
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    this.workers.clear();
    await this.pool.stop();
    this.agent.destroy();
  }

  private route(req: IncomingMessage, res: ServerResponse) {
    if (req.httpVersion === '1.1' && !req.headers.host) {
      readBody(req, res, MAX_REQUEST_BYTES, () => apiError(res, 400, 'Missing Host header'));
      return;
    }
    // As API Gateway: a CORS preflight is answered from the configuration, before and without any function.
    const cors = isPreflight(req) ? this.cors : undefined;
    if (cors) {
      answerPreflight(req, res, cors);
      return;
    }
    const path = requestTarget(req.url).pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    req.rawHeaders = this.originHeaders(req);
    if (path.startsWith('/system/')) return this.media(path, method, req, res);
    const fn = this.functions.find((f) => f.routes.some((r) => r.path === path && (r.method === method || r.method === 'ANY')));
    if (fn) return this.stream(fn, req, res);
    const match = this.router.match(method, path);
    if (match) this.call(match, req, res);
    // As the HTTP API answers a request no route takes.
    else readBody(req, res, MAX_REQUEST_BYTES, () => writeAnswer(req, res, withCors(NOT_FOUND, req.headers.origin, this.cors)));
  }

  /** As API Gateway: the whole request read (within Lambda's payload limit), the function invoked, its result answered. */
  private call(match: RouteMatch, req: IncomingMessage, res: ServerResponse) {
    readBody(req, res, maxBodyBytes(req.headers['content-type']), (body) => {
      const { functionKey } = match.route;
      const event = httpApiEvent(req, body, match, randomUUID());
      const answer = (outcome: { result: unknown } | { error: unknown }) => {
        // The client may have left; the invocation still ran to its end, as in AWS.
        if (res.destroyed || res.writableEnded) return;
        writeAnswer(req, res, withCors(httpAnswer(outcome), req.headers.origin, this.cors));
      };
      const fn = this.local?.byKey(functionKey);
      if (!fn) return answer({ error: new Error(`no function ${functionKey}`) });
      this.pool.invoke(fn, event).then(
        (result) => {
          // As Lambda, which fails the invocation: said here, since the function itself finished without error.
          if (overResponseLimit(result)) this.say('error', `${functionKey}: Response payload size exceeded maximum allowed payload size (${LAMBDA_RESPONSE_PAYLOAD_BYTES} bytes)`);
          answer({ result });
        },
        (error: unknown) => {
          this.say('error', `${functionKey}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          answer({ error });
        },
      );
    });
  }

  private originHeaders(req: IncomingMessage): string[] {
    return withOriginHeaders(req.rawHeaders, { ip: req.socket.remoteAddress ?? '', host: req.headers.host }, process.env.ORIGIN_SECRET ?? '');
  }

  /** The WebSocket API at /api/v1/streaming, as the distribution serves it: with the origin's headers. Any other path is 404. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const path = requestTarget(req.url).pathname;
    if (!WEBSOCKET_PATHS.has(path) || (req.method ?? 'GET').toUpperCase() !== 'GET') {
      answerOnSocket(socket, 404, 'Not found');
      return;
    }
    req.rawHeaders = this.originHeaders(req);
    this.webSocket.upgrade(req, socket, head);
  }
  /** Media under /system/, as the distribution serves the private bucket: GET and HEAD of one object, nothing under federation/. */
  private media(path: string, method: string, req: IncomingMessage, res: ServerResponse) {
    readBody(req, res, MAX_REQUEST_BYTES, () => {
      if (method !== 'GET' && method !== 'HEAD') return apiError(res, 405, 'Method not allowed');
      const key = mediaKeyOf(path);
      const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
      if (!key || !endpoint) return apiError(res, 404, 'Not found');
      const target = new URL(`${endpoint.replace(/\/+$/, '')}/${process.env.MEDIA_BUCKET ?? 'tootless-media-local'}/${key}`);
      const pass: Record<string, string> = {};
      for (const h of ['range', 'if-none-match', 'if-modified-since']) if (typeof req.headers[h] === 'string') pass[h] = req.headers[h] as string;
      const upstream = request({ host: target.hostname, port: target.port, method, path: target.pathname, headers: pass, agent: this.agent }, (answer) => {
        // As S3 behind origin access control: a missing object is 403 from the bucket; the distribution shows it.
        const headers = withoutHopByHop(answer.rawHeaders).concat('Access-Control-Allow-Origin', '*');
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', () => (res.headersSent ? res.destroy() : jsonError(res, 502, 'the media store did not answer')));
      upstream.end();
    });
  }

  private stream(fn: StreamedFunction, req: IncomingMessage, res: ServerResponse) {
    readBody(req, res, MAX_REQUEST_BYTES, (body) => {
      const event = functionUrlEvent(req, body, { requestId: randomUUID() });
      let worker = this.workers.get(fn.key);
      if (!worker) {
        worker = new FunctionWorker(fn, (w) => {
          if (this.workers.get(fn.key) === w) this.workers.delete(fn.key);
        }, this.say);
        this.workers.set(fn.key, worker);
      }
      worker.invoke(event, res);
    });
  }
}

/** The function of each route of the WebSocket API (`$connect`, `$default`, ...). */
function webSocketRoutesOf(service: Serverless['service']): Map<string, string> {
  const routes = new Map<string, string>();
  for (const key of service.getAllFunctions()) {
    for (const event of functionSchema.parse(service.getFunction(key)).events ?? []) {
      const route = z.object({ websocket: z.union([z.string(), z.object({ route: z.string() }).passthrough()]) }).safeParse(event);
      if (!route.success) continue;
      routes.set(typeof route.data.websocket === 'string' ? route.data.websocket : route.data.websocket.route, key);
    }
  }
  return routes;
}
