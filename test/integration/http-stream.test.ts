// Streamed HTTP handlers (lib/http/stream.ts) run as the Lambda runtime and a function
// URL in RESPONSE_STREAM mode run them (infra/local/lambda-stream.ts), and the local
// stack's front server (infra/local/stream-front.ts) that serves them over HTTP.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { z } from 'zod';
import { freePort } from '../../infra/local/emulators';
import {
  FunctionUrlResponse,
  installAwslambda,
  invokeStreamed,
  lambdaContext,
  type ResponseHead,
} from '../../infra/local/lambda-stream';
import { StreamFront, type Serverless } from '../../infra/local/stream-front';
import { notFound, unauthorized } from '../../lib/errors';
import { streamHttp, type GoneReason, type StreamOut } from '../../lib/http/stream';
import { anAppToken, aUser, type UserFixture } from '../support/factories';
import { buildEvent, type Call } from '../support/http';

// The Lambda runtime defines these globals before it loads a handler module.
installAwslambda();

/** A response as a client of the function URL sees it, while it arrives. */
type Live = {
  head: Promise<ResponseHead>;
  /** Everything received so far. */
  received: () => string;
  /** Resolves once the body received so far is exactly `text`. */
  until: (text: string) => Promise<void>;
  ended: Promise<string>;
  /** The client goes away. */
  abort: () => void;
  /** The invocation is over (the handler returned and its stream ended). */
  settled: Promise<void>;
};

function open(handler: unknown, request: Call, opts: { timeoutMs?: number } = {}): Live {
  const event: APIGatewayProxyEventV2 = { ...buildEvent(request), routeKey: '$default' };
  event.requestContext.routeKey = '$default';
  let body = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  let resolveHead!: (head: ResponseHead) => void;
  let resolveEnd!: (text: string) => void;
  const head = new Promise<ResponseHead>((r) => (resolveHead = r));
  const ended = new Promise<string>((r) => (resolveEnd = r));
  const check = () => {
    for (const w of [...waiters]) if (w.text === body) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  const url = new FunctionUrlResponse({
    head: resolveHead,
    body: (chunk) => {
      body += Buffer.from(chunk).toString('utf8');
      check();
    },
    end: () => resolveEnd(body),
  });
  const context = lambdaContext({ functionName: 'test-stream', timeoutMs: opts.timeoutMs ?? 30_000 });
  const invocation = invokeStreamed(handler, event, context, url);
  return {
    head,
    received: () => body,
    until: (text) => new Promise<void>((resolve) => {
      waiters.push({ text, resolve });
      check();
    }),
    ended,
    abort: invocation.abort,
    settled: invocation.settled,
  };
}

/** A promise the test resolves by hand, to hold `run` at a point. */
const gate = () => {
  let open!: () => void;
  const shut = new Promise<void>((r) => (open = r));
  return { shut, open };
};

const json = (head: ResponseHead, body: string) => ({ status: head.statusCode, type: head.headers['Content-Type'], body: JSON.parse(body) });

let reader: UserFixture;
let writeOnly: UserFixture;
let appToken: string;

beforeAll(async () => {
  reader = await aUser({ scopes: ['read'] });
  writeOnly = await aUser({ scopes: ['write'] });
  appToken = (await anAppToken(['read'])).token;
});

describe('a streamed handler, before its first byte', () => {
  const seen: unknown[] = [];
  const handler = streamHttp(
    async (input, ctx, out) => {
      seen.push({ input, account: ctx.account?.id });
      out.header('Content-Type', 'text/event-stream');
      await out.write(':)\n');
    },
    { auth: 'user', scopes: ['read:statuses'], schema: z.object({ list: z.string().regex(/^\d+$/, 'must be a list id').optional() }) },
  );

  beforeEach(() => {
    seen.length = 0;
  });

  it.each<[string, () => Call, number, string]>([
    ['no token', () => ({ path: '/api/v1/streaming/user' }), 401, 'The access token is invalid'],
    ['an unknown token', () => ({ path: '/api/v1/streaming/user', token: 'nope' }), 401, 'The access token is invalid'],
    ['an unknown access_token parameter', () => ({ path: '/api/v1/streaming/user', query: { access_token: 'nope' } }), 401, 'The access token is invalid'],
    ['a token outside the scopes', () => ({ path: '/api/v1/streaming/user', token: writeOnly.token }), 403, 'This action is outside the authorized scopes'],
    ['an app token where a user is needed', () => ({ path: '/api/v1/streaming/user', token: appToken }), 422, 'This method requires an authenticated user'],
    ['an invalid parameter', () => ({ path: '/api/v1/streaming/list', token: reader.token, query: { list: 'abc' } }), 422, 'Validation failed: list must be a list id'],
  ])('answers %s with {"error": ...} as JSON, and never runs', async (_name, request, status, error) => {
    const live = open(handler, request());
    const head = await live.head;
    const body = await live.ended;
    await live.settled;
    expect(json(head, body)).toEqual({ status, type: 'application/json; charset=utf-8', body: { error } });
    expect(head.headers['Access-Control-Allow-Origin']).toBe('*');
    expect(seen).toEqual([]);
  });

  it('streams once the token (header or access_token parameter) is good', async () => {
    for (const request of [
      { path: '/api/v1/streaming/user', token: reader.token },
      { path: '/api/v1/streaming/user', query: { access_token: reader.token } },
    ]) {
      const live = open(handler, request);
      const head = await live.head;
      expect(head.statusCode).toBe(200);
      expect(head.headers['Content-Type']).toBe('text/event-stream');
      expect(await live.ended).toBe(':)\n');
      await live.settled;
    }
    expect(seen).toEqual([
      { input: {}, account: reader.account.id },
      { input: {}, account: reader.account.id },
    ]);
  });

  it.each([
    ['404', notFound('Record not found'), 404, 'Record not found'],
    ['401', unauthorized(), 401, 'The access token is invalid'],
    ['500, for an unexpected error', new Error('boom'), 500, 'Internal server error'],
  ])('turns an error thrown by run before it writes into the usual JSON (%s), dropping the headers run had set', async (_name, err, status, error) => {
    const failing = streamHttp(async (_input, _ctx, out) => {
      out.header('Content-Type', 'text/event-stream');
      out.status(201);
      throw err;
    }, { auth: 'public' });
    const live = open(failing, { path: '/api/v1/streaming/public' });
    const head = await live.head;
    expect(json(head, await live.ended)).toEqual({ status, type: 'application/json; charset=utf-8', body: { error } });
    await live.settled;
  });
});

describe('a streamed handler, streaming', () => {
  it('sends the status and headers with the first chunk, then each chunk as it is written, in order', async () => {
    const first = gate();
    const second = gate();
    const handler = streamHttp(async (_input, _ctx, out) => {
      out.status(200);
      out.header('Content-Type', 'text/event-stream');
      out.header('Cache-Control', 'private, no-store');
      expect(await out.write('event: update\ndata: 1\n\n')).toBe(true);
      await first.shut;
      expect(await out.write('event: update\ndata: 2\n\n')).toBe(true);
      await second.shut;
      expect(await out.write('event: delete\ndata: 3\n\n')).toBe(true);
    }, { auth: 'public' });
    const live = open(handler, { path: '/api/v1/streaming/public' });

    const head = await live.head;
    expect(head).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'private, no-store' } });
    // run is held after its first write: what arrived was sent while it was still running.
    await live.until('event: update\ndata: 1\n\n');
    first.open();
    await live.until('event: update\ndata: 1\n\nevent: update\ndata: 2\n\n');
    second.open();
    expect(await live.ended).toBe('event: update\ndata: 1\n\nevent: update\ndata: 2\n\nevent: delete\ndata: 3\n\n');
    await live.settled;
  });

  it('ends the stream when run fails after its first byte; the status that went out stays', async () => {
    const handler = streamHttp(async (_input, _ctx, out) => {
      await out.write('data: partial\n\n');
      throw new Error('the event log went away');
    }, { auth: 'public' });
    const live = open(handler, { path: '/api/v1/streaming/public' });
    expect((await live.head).statusCode).toBe(200);
    expect(await live.ended).toBe('data: partial\n\n');
    await live.settled;
  });

  it('answers with its status and headers when run writes nothing', async () => {
    const handler = streamHttp(async (_input, _ctx, out) => {
      out.status(204);
      out.header('X-Stream', 'none');
    }, { auth: 'public' });
    const live = open(handler, { path: '/api/v1/streaming/public' });
    expect(await live.head).toMatchObject({ statusCode: 204, headers: { 'X-Stream': 'none' } });
    expect(await live.ended).toBe('');
    await live.settled;
  });

  it('notices when the client goes away: the signal aborts with "client" and writes answer false', async () => {
    const noticed: { gone?: GoneReason; reason?: unknown; write?: boolean } = {};
    const handler = streamHttp(async (_input, _ctx, out) => {
      await out.write(':)\n');
      if (!out.signal.aborted) await new Promise((r) => out.signal.addEventListener('abort', r, { once: true }));
      noticed.gone = out.gone;
      noticed.reason = out.signal.reason;
      noticed.write = await out.write('data: too late\n\n');
    }, { auth: 'public' });
    const live = open(handler, { path: '/api/v1/streaming/public' });
    await live.until(':)\n');
    live.abort();
    await live.settled;
    expect(noticed).toEqual({ gone: 'client', reason: 'client', write: false });
    expect(live.received()).toBe(':)\n');
  });

  it('aborts the signal with "deadline" shortly before the time limit, and the response still ends cleanly', async () => {
    const noticed: { gone?: GoneReason; remaining?: number } = {};
    const handler = streamHttp(async (_input, _ctx, out) => {
      await out.write(':)\n');
      if (!out.signal.aborted) await new Promise((r) => out.signal.addEventListener('abort', r, { once: true }));
      noticed.gone = out.gone;
      noticed.remaining = out.remainingMs();
      await out.write(': closing, reconnect with Last-Event-ID\n');
    }, { auth: 'public', deadlineMarginMs: 29_900 });
    const live = open(handler, { path: '/api/v1/streaming/public' }, { timeoutMs: 30_000 });
    expect(await live.ended).toBe(':)\n: closing, reconnect with Last-Event-ID\n');
    await live.settled;
    expect(noticed.gone).toBe('deadline');
    expect(noticed.remaining).toBeGreaterThan(0);
    expect(noticed.remaining).toBeLessThanOrEqual(29_900);
  });

  it('refuses to change the status or headers once the first chunk has gone', async () => {
    const attempts: string[] = [];
    const handler = streamHttp(async (_input, _ctx, out: StreamOut) => {
      await out.write('x');
      for (const change of [() => out.status(500), () => out.header('X-Late', '1')]) {
        try {
          change();
        } catch (err) {
          attempts.push(err instanceof Error ? err.message : String(err));
        }
      }
    }, { auth: 'public' });
    const live = open(handler, { path: '/api/v1/streaming/public' });
    expect((await live.head).statusCode).toBe(200);
    expect(await live.ended).toBe('x');
    expect(attempts).toEqual(['status cannot change after the first write', 'headers cannot change after the first write']);
  });
});

describe('GET /api/v1/streaming/health', () => {
  it.each([
    ['without a token', {}],
    ['with a bad token (the endpoint never looks at it)', { token: 'nope' }],
  ])('answers OK as text/plain %s', async (_name, extra) => {
    const { handler } = await import('../../functions/streaming/health');
    const live = open(handler, { path: '/api/v1/streaming/health', ...extra });
    expect(await live.head).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' } });
    expect(await live.ended).toBe('OK');
    await live.settled;
  });
});

describe('outside the Lambda runtime', () => {
  it('a streamed handler can be imported, but invoking it says what is missing', async () => {
    const saved = Reflect.get(globalThis, 'awslambda');
    Reflect.deleteProperty(globalThis, 'awslambda');
    try {
      const handler = streamHttp(async () => undefined, { auth: 'public' });
      await expect((handler as () => Promise<void>)()).rejects.toThrow(/awslambda globals/);
    } finally {
      Object.defineProperty(globalThis, 'awslambda', { value: saved, configurable: true, writable: true });
    }
  });
});

// The local stack's front server, with a bundle that uses the runtime's globals as any
// streamed handler does, and a buffered function behind an HTTP API route.
describe('the local stack front server', () => {
  let dir: string;
  let front: StreamFront;
  let base: string;

  const FIXTURE = `
import { writeFileSync } from 'node:fs';
export const handler = awslambda.streamifyResponse(async (event, responseStream) => {
  if (event.queryStringParameters?.fail) throw new Error('fixture failure before the first byte');
  const stream = awslambda.HttpResponseStream.from(responseStream, {
    statusCode: 200,
    headers: { 'content-type': 'text/event-stream' },
  });
  stream.write(':)\\n');
  // Held open until the client leaves: the first bytes can only have come as a stream.
  await new Promise((resolve) => stream.on('close', resolve));
  const record = { event, env: process.env.FIXTURE_VALUE, function: process.env.AWS_LAMBDA_FUNCTION_NAME };
  writeFileSync(new URL('./gone.json', import.meta.url), JSON.stringify(record));
});
`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tootless-front-'));
    mkdirSync(join(dir, '.build/functions/fixture'), { recursive: true });
    writeFileSync(join(dir, '.build/functions/fixture/stream.mjs'), FIXTURE);
    writeFileSync(
      join(dir, '.build/functions/fixture/buffered.mjs'),
      `export const handler = async (event) => ({
  statusCode: 201,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  cookies: ['a=1; Path=/; HttpOnly', 'b=2; Path=/'],
  body: JSON.stringify({ routeKey: event.routeKey, rawPath: event.rawPath, rawQueryString: event.rawQueryString, body: event.body, host: event.headers.host, function: process.env.AWS_LAMBDA_FUNCTION_NAME }),
});\n`,
    );
    const port = await freePort();
    const functions: Record<string, unknown> = {
      fixtureStream: {
        handler: 'functions/fixture/stream.handler',
        name: 'tootless-test-fixtureStream',
        url: { invokeMode: 'RESPONSE_STREAM' },
        streamRoutes: ['GET /api/v1/streaming/fixture'],
        environment: { FIXTURE_VALUE: 'from the function' },
      },
      buffered: { handler: 'functions/fixture/buffered.handler', name: 'tootless-test-buffered', events: [{ httpApi: 'POST /api/v1/statuses' }] },
    };
    const serverless: Serverless = {
      config: { servicePath: dir },
      service: {
        custom: { 'serverless-offline': { httpPort: port, host: '127.0.0.1', location: '.build' } },
        provider: { region: 'us-east-1', timeout: 29, environment: { FIXTURE_VALUE: 'from the provider' } },
        getAllFunctions: () => Object.keys(functions),
        getFunction: (key) => functions[key],
      },
    };
    front = new StreamFront(serverless, {}, () => undefined);
    await front.prepare();
    // serverless offline's own ports move out of the way, and it is handed no event the front serves.
    const moved = z.object({ httpPort: z.number() }).parse(serverless.service.custom?.['serverless-offline']);
    expect(moved.httpPort).not.toBe(port);
    expect(functions.buffered).toMatchObject({ events: [] });
    await front.listen();
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await front?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const waitForFile = async (path: string) => {
    const deadline = Date.now() + 10_000;
    while (!existsSync(path)) {
      if (Date.now() > deadline) throw new Error(`${path} never appeared`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return readFileSync(path, 'utf8');
  };

  it('streams a RESPONSE_STREAM function: the first bytes arrive while the response is open, and the handler sees the client leave', async () => {
    const client = new AbortController();
    const res = await fetch(`${base}/api/v1/streaming/fixture?stream=public&tag=a&tag=b`, {
      headers: { authorization: 'Bearer abc', cookie: 'x=1; y=2' },
      signal: client.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const body = res.body!.getReader();
    const { value } = await body.read();
    expect(Buffer.from(value!).toString('utf8')).toBe(':)\n');
    client.abort();
    const record = JSON.parse(await waitForFile(join(dir, '.build/functions/fixture/gone.json')));
    expect(record).toMatchObject({
      env: 'from the function',
      function: 'tootless-test-fixtureStream',
      event: {
        version: '2.0',
        routeKey: '$default',
        rawPath: '/api/v1/streaming/fixture',
        rawQueryString: 'stream=public&tag=a&tag=b',
        queryStringParameters: { stream: 'public', tag: 'a,b' },
        cookies: ['x=1', 'y=2'],
        headers: { authorization: 'Bearer abc' },
        isBase64Encoded: false,
        requestContext: { http: { method: 'GET', path: '/api/v1/streaming/fixture' }, routeKey: '$default', stage: '$default' },
      },
    });
    expect(record.event.headers.cookie).toBeUndefined();
  });

  it('answers 502 when the handler fails before its first byte, as a function URL does', async () => {
    const res = await fetch(`${base}/api/v1/streaming/fixture?fail=1`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ Message: 'Internal Server Error' });
  });

  it('runs a buffered function behind its HTTP API route: payload 2.0 in, its status, body and each Set-Cookie out', async () => {
    const res = await fetch(`${base}/api/v1/statuses?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'status=hello',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      routeKey: 'POST /api/v1/statuses',
      rawPath: '/api/v1/statuses',
      rawQueryString: 'x=1',
      body: 'status=hello',
      host: new URL(base).host,
      function: 'tootless-test-buffered',
    });
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/']);
  });

  it('answers a request no route takes as the HTTP API does, without running any function', async () => {
    // A method the stream does not list is no route either.
    for (const [method, path] of [['DELETE', '/api/v1/streaming/fixture'], ['GET', '/api/v1/statuses']]) {
      const res = await fetch(`${base}${path}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'Not Found' });
    }
  });
});
