// API Gateway's WebSocket API for the local stack: the handshakes of the streaming clients, their messages, and the
// Management API the functions answer through (lib/aws/management.ts), every invocation on the stack's one runner
// (`invoke`, ./function-pool.ts). It replaces serverless offline's WebSocket server, whose events and answers it
// keeps (its WebSocketConnectEvent, WebSocketEvent and WebSocketDisconnectEvent), where API Gateway does the same.
//
// What it reproduces of API Gateway:
//   - the handshake waits for the $connect route: a 2xx result completes it, with the subprotocol the result's
//     Sec-WebSocket-Protocol header names (and none otherwise); any other status refuses it with that status and
//     the result's body; a failed invocation refuses it with 502. Without a $connect route every client is let in.
//   - messages, text or binary (base64, isBase64Encoded), routed by the route selection expression
//     (`$request.body.action`) to their route or to $default; a failed invocation answers the client
//     `{"message": "Internal server error", ...}`, a message no route takes `{"message": "Forbidden", ...}`. The
//     routes have no route response: a result's body is not sent back.
//   - $disconnect once per connection $connect let in, whichever side closed it (or the client's leaving before the
//     handshake's answer), with disconnectStatusCode and disconnectReason; its result is ignored.
//   - the limits: 128 KB a message (closed with 1009), 2 hours in all and 10 minutes idle (closed with 1001); a
//     message either way counts as activity (PostToConnection keeps a connection open, as it does in AWS), a ping
//     does not.
//   - the Management API: POST (PostToConnection), GET (GetConnection) and DELETE (DeleteConnection) of
//     /@connections/{connectionId}, with 410 GoneException for a connection that is not open and 413
//     PayloadTooLargeException over 128 KB, in the wire format the AWS SDK reads.
//
// Not reproduced: authorizers (the service has none), route responses, API keys, the 32 KB frame limit (a message
// is limited as a whole), and the rates and connection counts API Gateway throttles.
//
// Messages of one connection are invoked one at a time, in the order they came, and $disconnect after them. API
// Gateway promises no order, and the streaming handlers do not rely on one; ordered runs are what tests can
// follow, and a $disconnect that cannot overtake a subscription leaves nothing of the connection behind.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { readBoundedBody } from './bounded-body';
import type { Invoke, LocalFunction, Say } from './local-functions';

export type WebSocketApiOptions = {
  /** The function of a route key ('$connect', '$disconnect', '$default', or a custom route), if the API has that route. */
  route: (routeKey: string) => LocalFunction | undefined;
  /** Runs one invocation, resolves with the handler's result, rejects if it failed. */
  invoke: Invoke;
  say: Say;
  /** provider.websocketsApiRouteSelectionExpression, default '$request.body.action'. */
  routeSelectionExpression?: string;
  /** Default 'local'. */
  stage?: string;
  /** requestContext.domainName; default: the request's Host header without port, else 'localhost'. */
  domainName?: string;
  /** Limits; defaults are API Gateway's (tests pass smaller ones). Default 10 minutes. */
  idleTimeoutMs?: number;
  /** Default 2 hours. */
  maxDurationMs?: number;
};

/** API Gateway's limit on a message, either way (a client's message, a PostToConnection's data). */
export const MAX_MESSAGE_BYTES = 128 * 1024;
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_DURATION_MS = 2 * 60 * 60 * 1000;
/** How long close() lets a client answer its close frame before cutting the connection. */
const CLOSE_GRACE_MS = 1000;

/** Where each message's JSON names its route, as a serverless service that names none gets. */
const DEFAULT_ROUTE_SELECTION = '$request.body.action';
const NOT_MESSAGE_ROUTES = new Set(['$connect', '$disconnect']);

const GOING_AWAY = { code: 1001, reason: 'Going away' };

/** What a $disconnect says when the close frame said nothing, as API Gateway words it. */
const CLOSE_REASONS: Record<number, string> = {
  1000: 'Connection Closed Normally',
  1001: 'Going away',
  1005: 'Client-side close frame status not set',
  1006: 'Connection was closed abnormally',
  1007: 'Invalid frame payload data',
  1009: 'Message too big',
};

/** The close code ws closes with when a client breaks a limit or the protocol (its receiver's errors). */
const RECEIVER_CLOSE_CODES: Record<string, number> = {
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009,
  WS_ERR_INVALID_UTF8: 1007,
};

/** API Gateway's ids (connections, requests): 16 characters of URL-safe base64, such as `L0SM9cOFvHcCIhw=`. */
const newId = () => `${randomBytes(11).toString('base64url')}=`;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** requestTime, in the Common Log Format API Gateway uses: `20/Jul/2023:23:29:25 +0000`. */
function clfTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()].map(two).join(':');
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${time} +0000`;
}

// Object.fromEntries defines own properties: a header or parameter named __proto__ stays a value.
function singleAndMulti(pairs: Iterable<[string, string]>): [Record<string, string>, Record<string, string[]>] {
  const multi = new Map<string, string[]>();
  const single = new Map<string, string>();
  for (const [name, value] of pairs) {
    single.set(name, value);
    const values = multi.get(name);
    if (values) values.push(value);
    else multi.set(name, [value]);
  }
  return [Object.fromEntries(single), Object.fromEntries(multi)];
}

function rawPairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** The value of a header in raw pairs, the last one sent, by any case of its name. */
function headerIn(pairs: [string, string][], name: string): string | undefined {
  let value: string | undefined;
  for (const [k, v] of pairs) if (k.toLowerCase() === name) value = v;
  return value;
}

/** The Host header without its port (`[::1]:3001` gives `[::1]`). */
function hostName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return name || undefined;
}

/** The client's address as API Gateway states it: an IPv4 client is not shown as an IPv4-mapped IPv6 address. */
const sourceIpOf = (address: string | undefined) => (address?.startsWith('::ffff:') ? address.slice(7) : (address ?? ''));

/**
 * The route key a message's body selects by the expression: `$request.body.a.b` is the string at that path of
 * the JSON body, and `${request.body.a}` parts are replaced by theirs. Undefined when the body is not JSON or a
 * path does not lead to a string: the message goes to $default.
 */
export function selectedRouteKey(expression: string, body: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const at = (path: string): unknown => {
    let value = json;
    for (const step of path.split('.')) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
      value = (value as Record<string, unknown>)[step];
    }
    return value;
  };
  const whole = /^\$request\.body\.(.+)$/.exec(expression);
  if (whole) {
    const value = at(whole[1]!);
    return typeof value === 'string' ? value : undefined;
  }
  let unresolved = false;
  const key = expression.replace(/\$\{request\.body\.([^}]+)\}/g, (_, path: string) => {
    const value = at(path);
    if (typeof value === 'string') return value;
    unresolved = true;
    return '';
  });
  return unresolved ? undefined : key;
}

/** The Management API's path: `/@connections/{id}`, after a stage if the client put one in the endpoint. */
const CONNECTION_PATH = /^(?:\/[^/@][^/]*)?\/@connections\/([^/]+)\/?$/;

type Identity = { sourceIp: string; userAgent: string | null };

/** What every event of a connection states of it. */
type Origin = { connectionId: string; connectedAt: number; identity: Identity; domainName: string };

/** A handshake waiting for its $connect. */
type Handshake = Origin & {
  socket: Duplex;
  /** The subprotocol the $connect result named, answered in the 101. */
  protocol?: string;
  /** Set once ws has completed the handshake. */
  ws?: WebSocket;
};

type Connection = {
  id: string;
  ws: WebSocket;
  origin: Origin;
  lastActiveAt: number;
  idle: NodeJS.Timeout;
  lifetime: NodeJS.Timeout;
  /** The invocations of its messages, one after the other; $disconnect comes last. */
  queue: Promise<void>;
  /** Set when this side closes it (a limit, DeleteConnection, close()): what $disconnect is told. */
  closing?: { code: number; reason: string };
  ended: boolean;
};

type Result = { statusCode?: unknown; headers?: unknown; body?: unknown };

export class WebSocketApi {
  private readonly wss: WebSocketServer;
  private readonly handshakes = new WeakMap<IncomingMessage, Handshake>();
  /** Open connections, by id: what the Management API can reach. */
  private readonly open = new Map<string, Connection>();
  /** Connections not yet closed (open or closing). */
  private readonly live = new Set<Connection>();
  /** What close() waits for: handshakes in their $connect, connections until they have closed, their invocations. */
  private readonly tasks = new Set<Promise<void>>();
  private readonly routeSelection: string;
  private readonly stage: string;
  private readonly idleTimeoutMs: number;
  private readonly maxDurationMs: number;
  private closed = false;

  constructor(private readonly opts: WebSocketApiOptions) {
    this.routeSelection = opts.routeSelectionExpression || DEFAULT_ROUTE_SELECTION;
    this.stage = opts.stage ?? 'local';
    this.idleTimeoutMs = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    this.maxDurationMs = opts.maxDurationMs ?? MAX_DURATION_MS;
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      maxPayload: MAX_MESSAGE_BYTES,
      // API Gateway negotiates no extension.
      perMessageDeflate: false,
      // ws answers a subprotocol only from those offered, and would pick the first one unasked; the $connect
      // result decides instead. One it names that the client did not offer is added by the 'headers' listener.
      handleProtocols: (_offered, req) => this.handshakes.get(req)?.protocol ?? false,
      // Called once ws has found the handshake well formed: a malformed one is refused before any $connect.
      verifyClient: (info, done) => this.track(this.connect(info.req, done)),
    });
    this.wss.on('headers', (headers, req) => {
      const protocol = this.handshakes.get(req)?.protocol;
      if (protocol && !headers.some((h) => /^sec-websocket-protocol:/i.test(h))) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
    });
  }

  /** A client's handshake (the caller has already checked path and method, and replaced req.rawHeaders with the headers the function must see). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    // ws listens for socket errors until the handshake completes; this one stays for the refusals written here.
    socket.on('error', () => socket.destroy());
    if (this.closed) {
      refuse(socket, 503, JSON.stringify({ message: 'Service Unavailable' }));
      return;
    }
    const pairs = rawPairs(req.rawHeaders);
    const handshake: Handshake = {
      connectionId: newId(),
      connectedAt: Date.now(),
      identity: { sourceIp: sourceIpOf(req.socket?.remoteAddress), userAgent: headerIn(pairs, 'user-agent') ?? null },
      domainName: this.opts.domainName ?? hostName(headerIn(pairs, 'host')) ?? 'localhost',
      socket,
    };
    this.handshakes.set(req, handshake);
    try {
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        handshake.ws = ws;
        this.opened(handshake, ws);
      });
    } catch (err) {
      this.opts.say('error', `WebSocket handshake: ${messageOf(err)}`);
      socket.destroy();
    }
  }

  /** The Management API: GET/POST/DELETE /@connections/{connectionId} (the caller routes every request of its management port here). */
  management(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => res.destroy());
    try {
      const tooLarge = () => answerError(res, 413, 'PayloadTooLargeException', 'Request entity too large');
      readBoundedBody(req, res, MAX_MESSAGE_BYTES, tooLarge, (body) => {
        try {
          this.manage(req, res, body);
        } catch (err) {
          this.opts.say('error', `WebSocket Management API: ${messageOf(err)}`);
          answerError(res, 500, undefined, 'Internal server error');
        }
      });
    } catch (err) {
      this.opts.say('error', `WebSocket Management API: ${messageOf(err)}`);
      answerError(res, 500, undefined, 'Internal server error');
    }
  }

  /** How many connections are open (tests). */
  get size(): number {
    return this.open.size;
  }

  /** Closes every connection (1001 Going away) and waits for their $disconnect invocations to settle. */
  async close(): Promise<void> {
    this.closed = true;
    for (const conn of [...this.open.values()]) this.end(conn, GOING_AWAY.code, GOING_AWAY.reason);
    // A client that does not answer its close frame is not waited for as ws would (30 s): the stack is stopping.
    const cut = setTimeout(() => {
      for (const conn of this.live) conn.ws.terminate();
    }, CLOSE_GRACE_MS);
    cut.unref();
    try {
      // A handshake still in its $connect, or a connection still closing, adds its $disconnect as it ends.
      while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
    } finally {
      clearTimeout(cut);
    }
  }

  private track(task: Promise<void>): void {
    const settled = task.catch((err: unknown) => this.opts.say('error', `WebSocket API: ${messageOf(err)}`));
    this.tasks.add(settled);
    void settled.finally(() => this.tasks.delete(settled));
  }

  /** What runs in ws's event listeners: an exception there would be thrown out of ws's socket handlers. */
  private guarded(what: string, step: () => void): void {
    try {
      step();
    } catch (err) {
      this.opts.say('error', `WebSocket ${what}: ${messageOf(err)}`);
    }
  }

  /** Runs one invocation; settles with its result or its failure, never throws (even should `invoke` throw). */
  private run(fn: LocalFunction, event: unknown): Promise<{ result: unknown } | { error: unknown }> {
    return Promise.resolve()
      .then(() => this.opts.invoke(fn, event))
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
  }

  private context(routeKey: string, eventType: 'CONNECT' | 'MESSAGE' | 'DISCONNECT', at: Origin, extra: Record<string, unknown> = {}) {
    const now = Date.now();
    return {
      routeKey,
      eventType,
      ...extra,
      extendedRequestId: newId(),
      requestTime: clfTime(now),
      messageDirection: 'IN',
      stage: this.stage,
      connectedAt: at.connectedAt,
      requestTimeEpoch: now,
      identity: { ...at.identity },
      requestId: newId(),
      domainName: at.domainName,
      connectionId: at.connectionId,
      apiId: 'local',
    };
  }

  /** The $connect of a well-formed handshake: completes it (`done(true)`) or refuses it on the socket. */
  private async connect(req: IncomingMessage, done: (ok: boolean) => void): Promise<void> {
    const handshake = this.handshakes.get(req);
    if (!handshake) {
      done(false);
      return;
    }
    try {
      await this.admit(req, handshake, done);
    } catch (err) {
      this.opts.say('error', `WebSocket handshake: ${messageOf(err)}`);
      // Before the 101 only: after it the socket carries frames.
      if (!handshake.ws) refuse(handshake.socket, 502, JSON.stringify({ message: 'Internal server error' }));
    }
  }

  private async admit(req: IncomingMessage, handshake: Handshake, done: (ok: boolean) => void): Promise<void> {
    const { socket } = handshake;
    const fn = this.opts.route('$connect');
    if (fn) {
      const pairs = rawPairs(req.rawHeaders);
      const [headers, multiValueHeaders] = singleAndMulti(pairs);
      const query = [...new URL(req.url ?? '/', 'http://localhost').searchParams];
      const [queryStringParameters, multiValueQueryStringParameters] = singleAndMulti(query);
      const event = {
        headers,
        multiValueHeaders,
        ...(query.length > 0 ? { queryStringParameters, multiValueQueryStringParameters } : {}),
        requestContext: this.context('$connect', 'CONNECT', handshake),
        isBase64Encoded: false,
      };
      const outcome = await this.run(fn, event);
      if ('error' in outcome) {
        this.opts.say('error', `${fn.key} ($connect): ${messageOf(outcome.error)}`);
        refuse(socket, 502, JSON.stringify({ message: 'Internal server error' }));
        return;
      }
      const answer = connectAnswer(outcome.result);
      if (answer.status < 200 || answer.status > 299) {
        refuse(socket, answer.status, answer.body);
        return;
      }
      if (answer.protocol) handshake.protocol = answer.protocol;
    }
    if (this.closed) {
      // Let in, then closed with the stack before the client could see it: it existed, so it ends.
      socket.destroy();
      this.gone(handshake, GOING_AWAY);
      return;
    }
    try {
      done(true);
    } catch (err) {
      this.opts.say('error', `WebSocket handshake: ${messageOf(err)}`);
      socket.destroy();
    }
    // ws drops a handshake whose client hung up meanwhile without a word: the connection $connect let in ends.
    if (!handshake.ws) this.gone(handshake, { code: 1006, reason: CLOSE_REASONS[1006]! });
  }

  /** A connection let in by $connect that never opened: its $disconnect, as for any that ends. */
  private gone(origin: Origin, close: { code: number; reason: string }): void {
    const fn = this.opts.route('$disconnect');
    if (fn) this.track(this.disconnect(fn, origin, close));
  }

  private opened(handshake: Handshake, ws: WebSocket): void {
    const { connectionId, connectedAt, identity, domainName } = handshake;
    const conn: Connection = {
      id: connectionId,
      ws,
      origin: { connectionId, connectedAt, identity, domainName },
      lastActiveAt: Date.now(),
      idle: setTimeout(() => this.end(conn, GOING_AWAY.code, GOING_AWAY.reason), this.idleTimeoutMs),
      lifetime: setTimeout(() => this.end(conn, GOING_AWAY.code, GOING_AWAY.reason), this.maxDurationMs),
      queue: Promise.resolve(),
      ended: false,
    };
    conn.idle.unref();
    conn.lifetime.unref();
    this.open.set(conn.id, conn);
    this.live.add(conn);
    ws.on('error', (err: Error & { code?: string }) => {
      // ws has closed (a receiver error) or is closing the connection; what $disconnect is told.
      const code = RECEIVER_CLOSE_CODES[err.code ?? ''];
      if (code !== undefined && !conn.closing) conn.closing = { code, reason: CLOSE_REASONS[code]! };
    });
    ws.on('message', (data: RawData, isBinary: boolean) => this.guarded('message', () => this.message(conn, bufferOf(data), isBinary)));
    ws.on('close', (code: number, reason: Buffer) => this.guarded('close', () => this.ended(conn, code, reason.toString('utf8'))));
    // Until it has closed, close() waits for it; by then its $disconnect is queued (ended, above, runs first).
    this.track(new Promise<void>((resolve) => ws.once('close', () => resolve())));
  }

  private message(conn: Connection, data: Buffer, isBinary: boolean): void {
    if (conn.closing || conn.ended) return;
    this.active(conn);
    const body = isBinary ? data.toString('base64') : data.toString('utf8');
    const key = isBinary ? undefined : selectedRouteKey(this.routeSelection, body);
    const custom = key !== undefined && !NOT_MESSAGE_ROUTES.has(key) ? this.opts.route(key) : undefined;
    const routeKey = custom ? key! : '$default';
    const fn = custom ?? this.opts.route('$default');
    const requestContext = this.context(routeKey, 'MESSAGE', conn.origin, { messageId: newId() });
    const answer = (message: string) => {
      if (conn.ws.readyState !== conn.ws.OPEN) return;
      conn.ws.send(JSON.stringify({ message, connectionId: conn.id, requestId: requestContext.requestId }), noop);
    };
    if (!fn) {
      // As API Gateway answers a message that no route takes; after the answers to the messages before it.
      this.enqueue(conn, async () => answer('Forbidden'));
      return;
    }
    const event = { requestContext, body, isBase64Encoded: isBinary };
    this.enqueue(conn, async () => {
      const outcome = await this.run(fn, event);
      if ('error' in outcome) {
        this.opts.say('error', `${fn.key} (${routeKey}): ${messageOf(outcome.error)}`);
        answer('Internal server error');
      }
    });
  }

  private enqueue(conn: Connection, step: () => Promise<void>): void {
    const next = conn.queue.then(step).catch((err: unknown) => this.opts.say('error', `WebSocket ${conn.id}: ${messageOf(err)}`));
    conn.queue = next;
    this.track(next);
  }

  /** A message either way: the idle timeout starts again. */
  private active(conn: Connection): void {
    conn.lastActiveAt = Date.now();
    conn.idle.refresh();
  }

  /** This side closes the connection: it is gone for the Management API at once, $disconnect follows its close. */
  private end(conn: Connection, code: number, reason: string): void {
    if (conn.closing || conn.ended) return;
    conn.closing = { code, reason };
    this.open.delete(conn.id);
    try {
      conn.ws.close(code, reason);
    } catch {
      conn.ws.terminate();
    }
  }

  private ended(conn: Connection, code: number, reason: string): void {
    if (conn.ended) return;
    conn.ended = true;
    this.live.delete(conn);
    clearTimeout(conn.idle);
    clearTimeout(conn.lifetime);
    if (this.open.get(conn.id) === conn) this.open.delete(conn.id);
    const close = conn.closing ?? { code, reason: reason || CLOSE_REASONS[code] || '' };
    const fn = this.opts.route('$disconnect');
    if (fn) this.enqueue(conn, () => this.disconnect(fn, conn.origin, close));
  }

  private async disconnect(fn: LocalFunction, at: Origin, close: { code: number; reason: string }): Promise<void> {
    // What API Gateway puts in a $disconnect's headers: the handshake's are not kept.
    const [headers, multiValueHeaders] = singleAndMulti([
      ['Host', at.domainName],
      ['x-api-key', ''],
      ['X-Forwarded-For', ''],
      ['x-restapi', ''],
    ]);
    const event = {
      headers,
      multiValueHeaders,
      requestContext: this.context('$disconnect', 'DISCONNECT', at, { disconnectStatusCode: close.code, disconnectReason: close.reason }),
      isBase64Encoded: false,
    };
    const outcome = await this.run(fn, event);
    if ('error' in outcome) this.opts.say('error', `${fn.key} ($disconnect): ${messageOf(outcome.error)}`);
  }

  private manage(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      return answerError(res, 400, 'BadRequestException', 'Bad request');
    }
    const match = CONNECTION_PATH.exec(path);
    if (!match) return answerError(res, 404, undefined, 'Not Found');
    let id: string;
    try {
      id = decodeURIComponent(match[1]!);
    } catch {
      return answerError(res, 400, 'BadRequestException', 'Invalid connection id');
    }
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return answerError(res, 405, undefined, 'Method Not Allowed');
    }
    if (method === 'POST' && body === undefined) {
      return answerError(res, 413, 'PayloadTooLargeException', `Message too long: at most ${MAX_MESSAGE_BYTES} bytes`);
    }
    const conn = this.open.get(id);
    if (!conn || conn.ws.readyState !== conn.ws.OPEN) return answerError(res, 410, 'GoneException', `Connection ${id} is gone`);
    if (method === 'POST') {
      const data = body ?? Buffer.alloc(0);
      conn.ws.send(data, { binary: !isUtf8(data) }, noop);
      this.active(conn);
      return answer(res, 200);
    }
    if (method === 'DELETE') {
      this.end(conn, 1000, CLOSE_REASONS[1000]!);
      return answer(res, 204);
    }
    // GetConnection, as the SDK reads it: its members' JSON names are camelCase (connectedAt, identity.sourceIp).
    const { identity } = conn.origin;
    answer(
      res,
      200,
      JSON.stringify({
        connectedAt: new Date(conn.origin.connectedAt).toISOString(),
        identity: { sourceIp: identity.sourceIp, ...(identity.userAgent === null ? {} : { userAgent: identity.userAgent }) },
        lastActiveAt: new Date(conn.lastActiveAt).toISOString(),
      }),
    );
  }
}

const noop = () => {};

const messageOf = (err: unknown) => (err instanceof Error ? (err.stack ?? err.message) : String(err));

function bufferOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** What a $connect result asks of the handshake: its status (a successful invocation without one lets in), body, subprotocol. */
function connectAnswer(result: unknown): { status: number; body: string; protocol?: string } {
  if (typeof result !== 'object' || result === null) return { status: 200, body: '' };
  const { statusCode, headers, body } = result as Result;
  const raw = typeof statusCode === 'string' && /^\d+$/.test(statusCode) ? Number(statusCode) : statusCode;
  const text = typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
  if (raw === undefined) return { status: 200, body: text };
  // A status no HTTP answer can carry is a malformed result, as API Gateway takes it.
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 200 || raw > 599) {
    return { status: 502, body: JSON.stringify({ message: 'Internal server error' }) };
  }
  let protocol: string | undefined;
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers)) {
      // Not a value that would end the 101's header line.
      if (name.toLowerCase() === 'sec-websocket-protocol' && typeof value === 'string' && value && !/[\r\n]/.test(value)) protocol = value;
    }
  }
  return { status: raw, body: text, ...(protocol ? { protocol } : {}) };
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A refused handshake's whole answer, written on the socket no response object owns, then closed. */
function refuse(socket: Duplex, status: number, body: string): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const type = body === '' ? [] : [`Content-Type: ${isJson(body) ? 'application/json' : 'text/plain; charset=utf-8'}`];
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...type, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

function answer(res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res
    .writeHead(status, {
      ...(body === '' ? {} : { 'content-type': 'application/json' }),
      ...headers,
      'x-amzn-RequestId': newId(),
      'content-length': String(Buffer.byteLength(body)),
    })
    .end(body);
}

/** The Management API's refusals: the error type where the SDK looks for it, and `{"message": ...}`. */
function answerError(res: ServerResponse, status: number, type: string | undefined, message: string): void {
  answer(res, status, JSON.stringify({ message }), type ? { 'x-amzn-ErrorType': type } : {});
}
