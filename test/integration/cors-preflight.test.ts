// CORS preflights on the local stack: the front server (infra/local/stream-front.ts)
// answers them from the HTTP API's CORS configuration as API Gateway does, for the
// API's routes and for the server-sent-event streams it serves itself, without
// running a function or passing them on to serverless offline. The same answers on
// the real stack, and what a browser makes of them, are in test/e2e/cors-browser.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/emulators';
import { httpApiCors, preflightHeaders } from '../../infra/local/preflight';
import { StreamFront, type Serverless } from '../../infra/local/stream-front';

const CORS = {
  allowedOrigins: ['*'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
  allowedMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  exposedResponseHeaders: ['Link', 'X-RateLimit-Remaining'],
  maxAge: 600,
};

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** One request as a browser's preflight goes out (fetch cannot send OPTIONS with these headers itself). */
const send = (base: string, method: string, path: string, headers: Record<string, string>) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(path, base);
    const req = request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });

const preflight = (method: string, requestHeaders: string, origin = 'https://elk.example') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': requestHeaders,
});

describe('the local front server answers CORS preflights as the HTTP API does', () => {
  let dir: string;
  let front: StreamFront;
  let base: string;
  /** The requests the buffered function was given. */
  const upstreamSaw = () => {
    const file = join(dir, '.build/functions/fixture/seen.txt');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tootless-cors-'));
    mkdirSync(join(dir, '.build/functions/fixture'), { recursive: true });
    // A streamed function that answers anything it is given: a preflight must never reach it.
    writeFileSync(
      join(dir, '.build/functions/fixture/stream.mjs'),
      `export const handler = awslambda.streamifyResponse(async (event, raw) => {
  const out = awslambda.HttpResponseStream.from(raw, { statusCode: 200, headers: { 'content-type': 'text/plain' } });
  out.write('ran for ' + event.requestContext.http.method);
  await new Promise((resolve) => out.end(resolve));
});\n`,
    );
    // A buffered function behind every method of one route, which notes each request it is given.
    writeFileSync(
      join(dir, '.build/functions/fixture/api.mjs'),
      `import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  appendFileSync(new URL('./seen.txt', import.meta.url), event.requestContext.http.method + ' ' + event.rawPath + '\\n');
  return { statusCode: 404, body: JSON.stringify({ error: 'Not found' }) };
};
`,
    );
    const port = await freePort();
    const functions: Record<string, unknown> = {
      fixtureStream: {
        handler: 'functions/fixture/stream.handler',
        name: 'tootless-test-corsStream',
        url: { invokeMode: 'RESPONSE_STREAM' },
        streamRoutes: ['GET /api/v1/streaming/user'],
      },
      fixtureApi: { handler: 'functions/fixture/api.handler', name: 'tootless-test-corsApi', events: [{ httpApi: 'ANY /api/v1/statuses' }] },
    };
    const provider = { region: 'us-east-1', timeout: 29, httpApi: { cors: CORS, payload: '2.0' } };
    const serverless: Serverless = {
      config: { servicePath: dir },
      service: {
        custom: { 'serverless-offline': { httpPort: port, host: '127.0.0.1', location: '.build' } },
        provider,
        getAllFunctions: () => Object.keys(functions),
        getFunction: (key) => functions[key],
      },
    };
    front = new StreamFront(serverless, {}, () => undefined);
    await front.prepare();
    await front.listen();
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await front?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers an API route\'s preflight with 204 and the configured origin, methods, headers, exposed headers and max-age', async () => {
    const res = await send(base, 'OPTIONS', '/api/v1/statuses', preflight('POST', 'authorization,content-type,idempotency-key'));
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE',
      'access-control-allow-headers': 'Authorization,Content-Type,Idempotency-Key',
      'access-control-expose-headers': 'Link,X-RateLimit-Remaining',
      'access-control-max-age': '600',
    });
    expect(upstreamSaw()).toEqual([]);
  });

  it('answers a server-sent-event stream\'s preflight the same way, without running its function', async () => {
    const api = await send(base, 'OPTIONS', '/api/v1/statuses', preflight('GET', 'authorization'));
    const stream = await send(base, 'OPTIONS', '/api/v1/streaming/user?stream=user', preflight('GET', 'authorization,last-event-id'));
    expect(stream.status).toBe(204);
    expect(stream.body).toBe('');
    const cors = (a: Answer) => Object.fromEntries(Object.entries(a.headers).filter(([k]) => k.startsWith('access-control-')));
    expect(cors(stream)).toEqual(cors(api));
    expect(upstreamSaw()).toEqual([]);
  });

  it('answers the preflight of a path no function serves, as the gateway does', async () => {
    const res = await send(base, 'OPTIONS', '/no/such/route', preflight('DELETE', 'authorization'));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,Idempotency-Key');
  });

  it('passes an OPTIONS request that is no preflight (no origin or no requested method) on to the route\'s function', async () => {
    expect((await send(base, 'OPTIONS', '/api/v1/statuses', {})).status).toBe(404);
    expect((await send(base, 'OPTIONS', '/api/v1/statuses', { origin: 'https://elk.example' })).status).toBe(404);
    expect(upstreamSaw()).toEqual(['OPTIONS /api/v1/statuses', 'OPTIONS /api/v1/statuses']);
  });

  it('still runs the stream itself for the request that follows the preflight', async () => {
    const res = await fetch(`${base}/api/v1/streaming/user`, { headers: { origin: 'https://elk.example', authorization: 'Bearer x' } });
    expect(await res.text()).toBe('ran for GET');
  });
});

describe('the preflight answer for a configuration', () => {
  it('names the origin itself, with Vary, when only some origins are allowed; none when the origin is not one of them', () => {
    const cors = { ...CORS, allowedOrigins: ['https://elk.example', 'https://*.phanpy.example'] };
    expect(preflightHeaders(cors, 'https://elk.example')).toMatchObject({ 'access-control-allow-origin': 'https://elk.example', vary: 'Origin' });
    expect(preflightHeaders(cors, 'https://dev.phanpy.example')).toMatchObject({ 'access-control-allow-origin': 'https://dev.phanpy.example' });
    expect(preflightHeaders(cors, 'https://evil.example')).toBeUndefined();
    expect(preflightHeaders(cors, 'https://phanpy.example.evil.example')).toBeUndefined();
  });

  it('names the origin rather than `*` when credentials are allowed (the Fetch standard refuses `*` with them)', () => {
    const headers = preflightHeaders({ ...CORS, allowCredentials: true }, 'https://elk.example');
    expect(headers).toMatchObject({ 'access-control-allow-origin': 'https://elk.example', 'access-control-allow-credentials': 'true' });
  });

  it('reads the provider\'s httpApi.cors, with the framework\'s defaults for `cors: true`, and nothing without one', () => {
    expect(httpApiCors({ httpApi: { cors: CORS } })).toMatchObject(CORS);
    expect(httpApiCors({ httpApi: { cors: true } })).toMatchObject({ allowedOrigins: ['*'], allowedHeaders: expect.arrayContaining(['Authorization', 'Content-Type']) });
    expect(httpApiCors({ httpApi: { payload: '2.0' } })).toBeUndefined();
    expect(httpApiCors({ region: 'us-east-1' })).toBeUndefined();
  });
});
