// The local stack's WebSocket API (infra/local/websocket-api.ts), driven as API Gateway's is: a real `ws` client
// on one side, the Management API through the AWS SDK (and lib/aws/management.ts) on the other, and a recording
// runner in place of the functions. What each route's function is handed, what the client sees of its answers,
// and the limits API Gateway puts on a connection.
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  GoneException,
  PayloadTooLargeException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { LocalFunction, Say } from '../../infra/local/local-functions';
import { MAX_MESSAGE_BYTES, WebSocketApi, selectedRouteKey, type WebSocketApiOptions } from '../../infra/local/websocket-api';
import { connectionRequest, connectionState } from '../../lib/aws/management';

/** An event as a function reads it: loosely. */
type Event = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const fakeFunction = (key: string): LocalFunction => ({
  key,
  name: `tootless-local-${key}`,
  setup: { bundle: '', exportName: '', functionName: `tootless-local-${key}`, memoryMb: 128, region: 'us-east-1' },
  env: {},
  timeoutMs: 1000,
});

let seen: { route: string; event: Event }[];
let said: { level: Parameters<Say>[0]; line: string }[];
/** Each route's function, as the runner runs it; a route left out of `functions` does not exist. */
let behaviour: Record<string, (event: Event) => Promise<unknown>>;
let listeners: (() => void)[];
let api: WebSocketApi | undefined;
let server: Server | undefined;
let port: number;

beforeEach(() => {
  seen = [];
  said = [];
  listeners = [];
  behaviour = {
    $connect: async () => ({ statusCode: 200 }),
    $disconnect: async () => ({ statusCode: 200 }),
    $default: async () => ({ statusCode: 200, body: 'not sent back' }),
    subscribe: async () => ({ statusCode: 200 }),
  };
});

afterEach(async () => {
  for (const release of holding) release();
  holding = [];
  await api?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  api = undefined;
  server = undefined;
});

/** Starts the API behind a real HTTP server, as the local stack's front does (its upgrades, its management port). */
async function start(options: Partial<WebSocketApiOptions> = {}, rawHeaders?: (req: IncomingMessage) => string[]): Promise<WebSocketApi> {
  const built = new WebSocketApi({
    route: (routeKey) => (Object.hasOwn(behaviour, routeKey) ? fakeFunction(routeKey) : undefined),
    invoke: (fn, event) => {
      seen.push({ route: fn.key, event });
      for (const listener of [...listeners]) listener();
      return behaviour[fn.key]!(event);
    },
    say: (level, line) => said.push({ level, line }),
    ...options,
  });
  server = createServer((req, res) => built.management(req, res));
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    if (rawHeaders) req.rawHeaders = rawHeaders(req);
    built.upgrade(req, socket, head);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  api = built;
  return built;
}

const events = (route: string): Event[] => seen.filter((s) => s.route === route).map((s) => s.event);

/** The nth invocation of a route (1 the first), once it happens. */
function invoked(route: string, n = 1): Promise<Event> {
  return new Promise((resolve) => {
    const check = () => {
      const event = events(route)[n - 1];
      if (event === undefined) return false;
      listeners = listeners.filter((l) => l !== check);
      resolve(event);
      return true;
    };
    if (!check()) listeners.push(check);
  });
}

/** Invocations still held when a test ends, let go so that close() does not wait for them. */
let holding: (() => void)[] = [];

/** A promise and its resolver: an invocation held until the test lets it end. */
function held<T = unknown>(): { promise: Promise<T>; release: (value: T) => void } {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (release = resolve));
  holding.push(() => release({ statusCode: 200 } as T));
  return { promise, release };
}

type Frame = { text: string; isBinary: boolean; data: Buffer };

/** A client whose frames are kept from its first one, read in order with next(). */
type Client = { ws: WebSocket; next: () => Promise<Frame>; closed: Promise<[number, string]> };

function client(path = '/', protocols: string[] = [], options: WebSocket.ClientOptions = {}): { ws: WebSocket; opened: Promise<Client> } {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, protocols, options);
  const frames: Frame[] = [];
  const waiting: ((f: Frame) => void)[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const frame = { text: data.toString('utf8'), isBinary, data };
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])));
  const next = () => {
    const frame = frames.shift();
    return frame ? Promise.resolve(frame) : new Promise<Frame>((resolve) => waiting.push(resolve));
  };
  const opened = once(ws, 'open').then(() => ({ ws, next, closed }));
  // A test that expects the handshake to fail listens for that itself.
  opened.catch(() => {});
  return { ws, opened };
}

const open = (path?: string, protocols?: string[], options?: WebSocket.ClientOptions) => client(path, protocols, options).opened;

/** The answer a refused handshake gets: its status, headers and body, as the client reads them. */
async function refusal(ws: WebSocket): Promise<{ status: number; type: string | undefined; body: string }> {
  const [, res] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  ws.on('error', () => {});
  return { status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') };
}

const sdk = () =>
  new ApiGatewayManagementApiClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });

/** After a ping's pong, the server has read every frame the client sent before it. */
async function flushed(ws: WebSocket): Promise<void> {
  ws.ping();
  await once(ws, 'pong');
}

describe('the handshake', () => {
  it('hands $connect the headers, query and request context serverless offline did, and opens the connection', async () => {
    // As the front does: the headers the function sees are those it put in rawHeaders (the last of a name wins).
    await start({}, (req) => [...req.rawHeaders, 'X-Thing', 'two']);
    const c = await open('/api/v1/streaming?stream=user&tag=a&tag=b', [], { headers: { 'User-Agent': 'jest-client', 'X-Thing': 'one' } });
    const event = await invoked('$connect');
    expect(event.headers).toMatchObject({ Host: `127.0.0.1:${port}`, 'User-Agent': 'jest-client', 'X-Thing': 'two', Upgrade: 'websocket' });
    expect(event.multiValueHeaders['X-Thing']).toEqual(['one', 'two']);
    expect(event.multiValueHeaders['User-Agent']).toEqual(['jest-client']);
    expect(event.queryStringParameters).toEqual({ stream: 'user', tag: 'b' });
    expect(event.multiValueQueryStringParameters).toEqual({ stream: ['user'], tag: ['a', 'b'] });
    expect(event.isBase64Encoded).toBe(false);
    const ctx = event.requestContext;
    expect(ctx).toMatchObject({
      routeKey: '$connect',
      eventType: 'CONNECT',
      messageDirection: 'IN',
      stage: 'local',
      apiId: 'local',
      domainName: '127.0.0.1',
      identity: { sourceIp: '127.0.0.1', userAgent: 'jest-client' },
    });
    expect(ctx.connectionId).toMatch(/^[A-Za-z0-9_-]{15}=$/);
    expect(ctx.requestId).toMatch(/^[A-Za-z0-9_-]{15}=$/);
    expect(ctx.extendedRequestId).toMatch(/^[A-Za-z0-9_-]{15}=$/);
    expect(ctx.requestTime).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    expect(typeof ctx.requestTimeEpoch).toBe('number');
    expect(typeof ctx.connectedAt).toBe('number');
    expect(ctx.messageId).toBeUndefined();
    expect(api!.size).toBe(1);
    expect(c.ws.protocol).toBe('');
  });

  it('states no query parameters when there is no query; the configured domain and stage', async () => {
    await start({ domainName: 'abc.execute-api.us-east-1.amazonaws.com', stage: 'prod' });
    await open('/');
    const event = await invoked('$connect');
    expect('queryStringParameters' in event).toBe(false);
    expect('multiValueQueryStringParameters' in event).toBe(false);
    expect(event.requestContext).toMatchObject({ domainName: 'abc.execute-api.us-east-1.amazonaws.com', stage: 'prod' });
  });

  it('answers the subprotocol the $connect result names, and none when it names none', async () => {
    behaviour.$connect = async (event) => {
      const offered = String(event.headers['Sec-WebSocket-Protocol'] ?? '').split(',')[0]!.trim();
      return offered === 'echo-me' ? { statusCode: 200, headers: { 'sec-websocket-protocol': offered } } : { statusCode: 200 };
    };
    await start();
    const echoed = await open('/', ['echo-me', 'other']);
    expect(echoed.ws.protocol).toBe('echo-me');
    // Not echoed: the client (as a browser would) drops the handshake the server completed; the connection ends.
    const { ws } = client('/', ['not-echoed']);
    const [err] = (await once(ws, 'error')) as [Error];
    expect(err.message).toBe('Server sent no subprotocol');
    const gone = await invoked('$disconnect');
    expect(gone.requestContext.connectionId).toBe(events('$connect')[1].requestContext.connectionId);
    expect(api!.size).toBe(1);
  });

  it('answers a subprotocol the client did not offer when $connect names one, as API Gateway would', async () => {
    behaviour.$connect = async () => ({ statusCode: 200, headers: { 'Sec-WebSocket-Protocol': 'unasked' } });
    await start();
    const { ws } = client('/');
    const [err] = (await once(ws, 'error')) as [Error];
    expect(err.message).toBe('Server sent a subprotocol but none was requested');
  });

  it('refuses the handshake with the status and body of a non-2xx $connect result', async () => {
    behaviour.$connect = async (event) =>
      event.queryStringParameters?.plain ? { statusCode: 429, body: 'slow down' } : { statusCode: 403, body: JSON.stringify({ error: 'Forbidden' }) };
    await start();
    const json = await refusal(client('/').ws);
    expect(json).toEqual({ status: 403, type: 'application/json', body: '{"error":"Forbidden"}' });
    const text = await refusal(client('/?plain=1').ws);
    expect(text).toEqual({ status: 429, type: 'text/plain; charset=utf-8', body: 'slow down' });
    expect(api!.size).toBe(0);
    // A connection never opened does not end.
    await api!.close();
    expect(events('$disconnect')).toHaveLength(0);
  });

  it('refuses with 502 when $connect fails, and says why', async () => {
    behaviour.$connect = async () => {
      throw new Error('boom in connect');
    };
    await start();
    expect(await refusal(client('/').ws)).toEqual({ status: 502, type: 'application/json', body: '{"message":"Internal server error"}' });
    expect(said.some((s) => s.level === 'error' && s.line.includes('boom in connect'))).toBe(true);
    expect(api!.size).toBe(0);
  });

  it('lets every client in when there is no $connect route', async () => {
    delete behaviour.$connect;
    await start();
    await open('/');
    expect(api!.size).toBe(1);
  });

  it('refuses a malformed handshake itself, before any $connect', async () => {
    await start();
    const socket = tcpConnect(port, '127.0.0.1');
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'close');
    expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^HTTP\/1\.1 400 /);
    expect(events('$connect')).toHaveLength(0);
  });

  it('ends a connection whose client hung up while $connect ran: $disconnect once', async () => {
    const gate = held<unknown>();
    behaviour.$connect = () => gate.promise;
    await start();
    const { ws } = client('/');
    ws.on('error', () => {});
    await invoked('$connect');
    const closed = new Promise((resolve) => ws.once('close', resolve));
    ws.terminate();
    await closed;
    gate.release({ statusCode: 200 });
    const gone = await invoked('$disconnect');
    expect(gone.requestContext.connectionId).toBe(events('$connect')[0].requestContext.connectionId);
    await api!.close();
    expect(events('$disconnect')).toHaveLength(1);
    expect(api!.size).toBe(0);
  });
});

describe('messages', () => {
  it('routes by the action of the JSON body, anything else to $default; the result is not sent back', async () => {
    await start();
    const c = await open('/');
    const connectionId = (await invoked('$connect')).requestContext.connectionId;
    c.ws.send('not json');
    c.ws.send(JSON.stringify({ action: 'subscribe', stream: 'user' }));
    c.ws.send(JSON.stringify({ action: 'nothing-by-that-name' }));
    c.ws.send(JSON.stringify({ action: '$connect' }));
    c.ws.send(JSON.stringify({ action: 7 }));
    await invoked('$default', 4);
    const routed = seen.filter((s) => s.route !== '$connect').map((s) => [s.route, s.event.requestContext.routeKey, s.event.body]);
    expect(routed).toEqual([
      ['$default', '$default', 'not json'],
      ['subscribe', 'subscribe', '{"action":"subscribe","stream":"user"}'],
      ['$default', '$default', '{"action":"nothing-by-that-name"}'],
      ['$default', '$default', '{"action":"$connect"}'],
      ['$default', '$default', '{"action":7}'],
    ]);
    const event = events('subscribe')[0];
    expect(event.isBase64Encoded).toBe(false);
    expect(event.requestContext).toMatchObject({ eventType: 'MESSAGE', connectionId, messageDirection: 'IN', identity: { sourceIp: '127.0.0.1' } });
    expect(event.requestContext.messageId).toMatch(/^[A-Za-z0-9_-]{15}=$/);
    expect(event.requestContext.connectedAt).toBe(events('$connect')[0].requestContext.connectedAt);
    // Nothing came back: the next frame the client gets is the one posted now.
    await connectionRequest(`http://127.0.0.1:${port}`, connectionId, Buffer.from('first frame'));
    expect((await c.next()).text).toBe('first frame');
  });

  it('follows the configured route selection expression', async () => {
    await start({ routeSelectionExpression: '$request.body.meta.kind' });
    const c = await open('/');
    c.ws.send(JSON.stringify({ action: 'x', meta: { kind: 'subscribe' } }));
    expect((await invoked('subscribe')).body).toBe('{"action":"x","meta":{"kind":"subscribe"}}');
    expect(selectedRouteKey('${request.body.a}-${request.body.b}', '{"a":"sub","b":"scribe"}')).toBe('sub-scribe');
    expect(selectedRouteKey('$request.body.action', '{"action":{"x":1}}')).toBeUndefined();
    expect(selectedRouteKey('$request.body.toString', '{}')).toBeUndefined();
  });

  it('hands a binary message base64-encoded', async () => {
    await start();
    const c = await open('/');
    c.ws.send(Buffer.from([0, 1, 2, 255]), { binary: true });
    const event = await invoked('$default');
    expect(event).toMatchObject({ body: 'AAEC/w==', isBase64Encoded: true, requestContext: { routeKey: '$default', eventType: 'MESSAGE' } });
  });

  it('answers a failed invocation with API Gateway’s error frame; the connection stays open', async () => {
    behaviour.$default = async () => {
      throw new Error('boom in default');
    };
    await start();
    const c = await open('/');
    c.ws.send('hello');
    const event = await invoked('$default');
    const frame = await c.next();
    expect(JSON.parse(frame.text)).toEqual({
      message: 'Internal server error',
      connectionId: event.requestContext.connectionId,
      requestId: event.requestContext.requestId,
    });
    expect(frame.isBinary).toBe(false);
    expect(said.some((s) => s.level === 'error' && s.line.includes('boom in default'))).toBe(true);
    expect(api!.size).toBe(1);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('answers Forbidden to a message no route takes', async () => {
    delete behaviour.$default;
    await start();
    const c = await open('/');
    c.ws.send('{"action":"unknown"}');
    const frame = JSON.parse((await c.next()).text);
    expect(frame).toMatchObject({ message: 'Forbidden', connectionId: events('$connect')[0].requestContext.connectionId });
    expect(typeof frame.requestId).toBe('string');
  });

  it('invokes the messages of one connection one at a time, in order', async () => {
    const gate = held<unknown>();
    behaviour.$default = (event) => (event.body === 'one' ? gate.promise : Promise.resolve({ statusCode: 200 }));
    await start();
    const c = await open('/');
    c.ws.send('one');
    c.ws.send('two');
    await invoked('$default');
    await flushed(c.ws);
    // 'two' has reached the server, and waits for 'one'.
    expect(events('$default').map((e) => e.body)).toEqual(['one']);
    gate.release({ statusCode: 200 });
    await invoked('$default', 2);
    expect(events('$default').map((e) => e.body)).toEqual(['one', 'two']);
  });

  it(`closes a connection with 1009 on a message over ${MAX_MESSAGE_BYTES} bytes`, async () => {
    await start();
    const c = await open('/');
    c.ws.on('error', () => {});
    c.ws.send('x'.repeat(200 * 1024));
    const [code] = await c.closed;
    expect(code).toBe(1009);
    const gone = await invoked('$disconnect');
    expect(gone.requestContext.disconnectStatusCode).toBe(1009);
    expect(events('$default')).toHaveLength(0);
    expect(api!.size).toBe(0);
  });

  it('takes a message of exactly the limit', async () => {
    await start();
    const c = await open('/');
    c.ws.send('y'.repeat(MAX_MESSAGE_BYTES));
    expect((await invoked('$default')).body).toHaveLength(MAX_MESSAGE_BYTES);
  });
});

describe('the Management API', () => {
  it('posts text and binary frames, reads a connection, and deletes it', async () => {
    await start();
    const c = await open('/', [], { headers: { 'User-Agent': 'jest-client' } });
    const id: string = (await invoked('$connect')).requestContext.connectionId;
    const management = sdk();
    await management.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('{"event":"update"}') }));
    const text = await c.next();
    expect(text).toMatchObject({ text: '{"event":"update"}', isBinary: false });
    await management.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from([0xff, 0xfe, 0x00]) }));
    const binary = await c.next();
    expect(binary.isBinary).toBe(true);
    expect([...binary.data]).toEqual([0xff, 0xfe, 0x00]);

    const state = await management.send(new GetConnectionCommand({ ConnectionId: id }));
    expect(state.Identity).toEqual({ SourceIp: '127.0.0.1', UserAgent: 'jest-client' });
    expect(state.ConnectedAt).toBeInstanceOf(Date);
    expect(state.ConnectedAt!.getTime()).toBe(events('$connect')[0].requestContext.connectedAt);
    expect(state.LastActiveAt!.getTime()).toBeGreaterThanOrEqual(state.ConnectedAt!.getTime());
    expect(await connectionState(`http://127.0.0.1:${port}`, id)).toBe('open');

    const deleted = await management.send(new DeleteConnectionCommand({ ConnectionId: id }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    // Gone at once, before the close handshake is over.
    expect(api!.size).toBe(0);
    await expect(management.send(new GetConnectionCommand({ ConnectionId: id }))).rejects.toBeInstanceOf(GoneException);
    const [code] = await c.closed;
    expect(code).toBe(1000);
    const gone = await invoked('$disconnect');
    expect(gone.requestContext).toMatchObject({ routeKey: '$disconnect', eventType: 'DISCONNECT', connectionId: id, disconnectStatusCode: 1000 });
  });

  it('answers 410 GoneException for a connection that is unknown or closed', async () => {
    await start();
    const c = await open('/');
    const id: string = (await invoked('$connect')).requestContext.connectionId;
    c.ws.close(1000);
    await c.closed;
    await invoked('$disconnect');
    const management = sdk();
    for (const ConnectionId of [id, 'unknownConnId=']) {
      const post = management.send(new PostToConnectionCommand({ ConnectionId, Data: Buffer.from('x') }));
      await expect(post).rejects.toBeInstanceOf(GoneException);
      await expect(post).rejects.toMatchObject({ $metadata: { httpStatusCode: 410 } });
      await expect(management.send(new GetConnectionCommand({ ConnectionId }))).rejects.toBeInstanceOf(GoneException);
      await expect(management.send(new DeleteConnectionCommand({ ConnectionId }))).rejects.toBeInstanceOf(GoneException);
    }
    expect(await connectionState(`http://127.0.0.1:${port}`, id)).toBe('gone');
    await expect(connectionRequest(`http://127.0.0.1:${port}`, id, Buffer.from('x'))).rejects.toMatchObject({ name: 'GoneException' });
    const raw = await fetch(`http://127.0.0.1:${port}/@connections/${encodeURIComponent(id)}`);
    expect(raw.status).toBe(410);
    expect(raw.headers.get('x-amzn-errortype')).toBe('GoneException');
    expect(typeof ((await raw.json()) as { message: unknown }).message).toBe('string');
  });

  it(`answers 413 PayloadTooLargeException over ${MAX_MESSAGE_BYTES} bytes; the connection stays open`, async () => {
    await start();
    const c = await open('/');
    const id: string = (await invoked('$connect')).requestContext.connectionId;
    const post = sdk().send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x61) }));
    await expect(post).rejects.toBeInstanceOf(PayloadTooLargeException);
    await sdk().send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.alloc(MAX_MESSAGE_BYTES, 0x62) }));
    expect((await c.next()).data.length).toBe(MAX_MESSAGE_BYTES);
  });

  it('takes a stage before /@connections, a URL-encoded id; answers 404 elsewhere and 405 to other methods', async () => {
    await start();
    const c = await open('/');
    const id: string = (await invoked('$connect')).requestContext.connectionId;
    const staged = await fetch(`http://127.0.0.1:${port}/local/@connections/${encodeURIComponent(id)}`, { method: 'POST', body: 'staged' });
    expect(staged.status).toBe(200);
    expect(await staged.text()).toBe('');
    expect((await c.next()).text).toBe('staged');
    const elsewhere = await fetch(`http://127.0.0.1:${port}/connections/${id}`, { method: 'POST', body: 'x' });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({ message: 'Not Found' });
    const put = await fetch(`http://127.0.0.1:${port}/@connections/${encodeURIComponent(id)}`, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(typeof ((await put.json()) as { message: unknown }).message).toBe('string');
    const malformed = await fetch(`http://127.0.0.1:${port}/@connections/%E0%A4%A`);
    expect(malformed.status).toBe(400);
  });
});

describe('closing', () => {
  it('tells $disconnect the code and reason of a client’s close, once, with API Gateway’s headers', async () => {
    await start();
    const c = await open('/');
    c.ws.close(4000, 'bye');
    await c.closed;
    const gone = await invoked('$disconnect');
    expect(gone.headers).toEqual({ Host: '127.0.0.1', 'x-api-key': '', 'X-Forwarded-For': '', 'x-restapi': '' });
    expect(gone.multiValueHeaders).toEqual({ Host: ['127.0.0.1'], 'x-api-key': [''], 'X-Forwarded-For': [''], 'x-restapi': [''] });
    expect(gone.isBase64Encoded).toBe(false);
    expect(gone.requestContext).toMatchObject({ routeKey: '$disconnect', eventType: 'DISCONNECT', disconnectStatusCode: 4000, disconnectReason: 'bye' });
    await api!.close();
    expect(events('$disconnect')).toHaveLength(1);
  });

  it('reports a client gone without a close frame as 1006', async () => {
    await start();
    const c = await open('/');
    c.ws.terminate();
    const gone = await invoked('$disconnect');
    expect(gone.requestContext.disconnectStatusCode).toBe(1006);
  });

  it('only logs a failed $disconnect', async () => {
    behaviour.$disconnect = async () => {
      throw new Error('boom in disconnect');
    };
    await start();
    const c = await open('/');
    c.ws.close();
    await invoked('$disconnect');
    await api!.close();
    expect(said.some((s) => s.level === 'error' && s.line.includes('boom in disconnect'))).toBe(true);
  });

  it('closes an idle connection with 1001 Going away', async () => {
    await start({ idleTimeoutMs: 200 });
    const c = await open('/');
    expect(await c.closed).toEqual([1001, 'Going away']);
    const gone = await invoked('$disconnect');
    expect(gone.requestContext).toMatchObject({ disconnectStatusCode: 1001, disconnectReason: 'Going away' });
    await api!.close();
    expect(events('$disconnect')).toHaveLength(1);
  });

  it('closes a connection at its maximum duration with 1001 Going away', async () => {
    await start({ maxDurationMs: 200 });
    const c = await open('/');
    expect(await c.closed).toEqual([1001, 'Going away']);
    expect((await invoked('$disconnect')).requestContext.disconnectStatusCode).toBe(1001);
  });

  it('close() ends every connection and waits for their $disconnect; later handshakes are refused', async () => {
    const release = held<unknown>();
    behaviour.$disconnect = () => release.promise;
    await start();
    const [a, b] = await Promise.all([open('/'), open('/')]);
    expect(api!.size).toBe(2);
    let done = false;
    const closing = api!.close().then(() => (done = true));
    expect((await a.closed)[0]).toBe(1001);
    expect((await b.closed)[0]).toBe(1001);
    await invoked('$disconnect', 2);
    expect(done).toBe(false);
    release.release({ statusCode: 200 });
    await closing;
    expect(api!.size).toBe(0);
    expect(events('$disconnect').map((e) => e.requestContext.disconnectStatusCode)).toEqual([1001, 1001]);
    const late = await refusal(client('/').ws);
    expect(late.status).toBe(503);
  });
});
