// The local stack's HTTP API (infra/local/http-api.ts): routing as API Gateway routes,
// the payload 2.0 event, and the answer made of a function's result. The whole path
// (front server → warm instance → handler → answer) runs in every e2e suite.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpApiRouter, httpAnswer, httpApiEvent, httpApiRoutes, withCors } from '../../infra/local/http-api';
import { httpApiCors } from '../../infra/local/preflight';
import { loadRoutes } from '../fuzz/routes';

const service = (functions: Record<string, { events: unknown[] }>) => ({
  getAllFunctions: () => Object.keys(functions),
  getFunction: (key: string) => functions[key],
});

const fixture = new HttpApiRouter(
  httpApiRoutes(
    service({
      show: { events: [{ httpApi: 'GET /api/v1/accounts/{id}' }] },
      verify: { events: [{ httpApi: 'GET /api/v1/accounts/verify_credentials' }] },
      follow: { events: [{ httpApi: 'POST /api/v1/accounts/{id}/follow' }] },
      keyword: { events: [{ httpApi: 'GET /api/v2/filters/keywords/{id}' }] },
      keywords: { events: [{ httpApi: 'GET /api/v2/filters/{id}/keywords' }] },
      anyMethod: { events: [{ httpApi: 'ANY /things/{id}' }] },
      getThing: { events: [{ httpApi: { method: 'get', path: '/things/{id}' } }] },
      greedy: { events: [{ httpApi: 'GET /files/{path+}' }] },
      fileInfo: { events: [{ httpApi: 'GET /files/{name}/info' }] },
      notFound: { events: [{ httpApi: '*' }] },
      noEvents: { events: [] },
      otherEvent: { events: [{ sqs: { arn: 'x' } }] },
    }),
  ),
);

const routed = (method: string, path: string) => {
  const match = fixture.match(method, path);
  return match && { fn: match.route.functionKey, key: match.route.routeKey, params: match.pathParameters };
};

describe('routing as API Gateway routes', () => {
  it('prefers a literal segment to a variable, whatever the order of declaration', () => {
    expect(routed('GET', '/api/v1/accounts/verify_credentials')).toEqual({ fn: 'verify', key: 'GET /api/v1/accounts/verify_credentials', params: undefined });
    expect(routed('GET', '/api/v1/accounts/109')).toEqual({ fn: 'show', key: 'GET /api/v1/accounts/{id}', params: { id: '109' } });
    expect(routed('GET', '/api/v2/filters/keywords/7')).toMatchObject({ fn: 'keyword', params: { id: '7' } });
    expect(routed('GET', '/api/v2/filters/7/keywords')).toMatchObject({ fn: 'keywords', params: { id: '7' } });
  });

  it('prefers a method to ANY, and ANY to the default route', () => {
    expect(routed('GET', '/things/1')).toMatchObject({ fn: 'getThing', key: 'GET /things/{id}' });
    expect(routed('DELETE', '/things/1')).toMatchObject({ fn: 'anyMethod', key: 'ANY /things/{id}' });
  });

  it('prefers a variable to a greedy variable, which takes the rest of the path', () => {
    expect(routed('GET', '/files/a/info')).toMatchObject({ fn: 'fileInfo', params: { name: 'a' } });
    expect(routed('GET', '/files/a/b/c')).toMatchObject({ fn: 'greedy', params: { path: 'a/b/c' } });
  });

  it('sends what no route takes to $default: another method, another path, an empty variable, one segment too many', () => {
    for (const [method, path] of [
      ['POST', '/api/v1/accounts/verify_credentials'],
      ['PROPFIND', '/api/v1/accounts/1'],
      ['GET', '/nowhere'],
      ['GET', '/api/v1/accounts//follow'],
      ['POST', '/api/v1/accounts/1/follow/again'],
      ['GET', '/files/'],
      ['GET', '*'],
    ]) {
      expect(routed(method!, path!)).toEqual({ fn: 'notFound', key: '$default', params: undefined });
    }
  });

  it('passes path variables as they appear in the path, not decoded', () => {
    expect(routed('GET', '/api/v1/accounts/caf%C3%A9%2F')).toMatchObject({ params: { id: 'caf%C3%A9%2F' } });
  });

  it('takes a path with a trailing slash as the path without it, as the local stack always has', () => {
    expect(routed('GET', '/api/v1/accounts/verify_credentials/')).toMatchObject({ fn: 'verify' });
  });

  it('has no answer without a default route for what no route takes', () => {
    const router = new HttpApiRouter(httpApiRoutes(service({ verify: { events: [{ httpApi: 'GET /v' }] } })));
    expect(router.match('GET', '/w')).toBeUndefined();
  });

  it('routes every route of the service to its own function (the route table in functions/*/functions.yml)', () => {
    const table = loadRoutes().filter((r) => !r.stream);
    const functions: Record<string, { events: unknown[] }> = {};
    for (const r of table) (functions[r.fn] ??= { events: [] }).events.push({ httpApi: r.key });
    const router = new HttpApiRouter(httpApiRoutes(service(functions)));
    const catchAll = table.find((r) => r.key === '*');
    expect(catchAll).toBeDefined();
    expect(router.size).toBe(table.length);
    for (const r of table) {
      if (r.key === '*') continue;
      const path = r.path.replace(/\{[^}]+\}/g, (_, i: number) => `v${i}x`);
      const match = router.match(r.method, path);
      expect({ route: r.key, fn: match?.route.functionKey }).toEqual({ route: r.key, fn: r.fn });
    }
    expect(router.match('GET', '/api/v1/no-such-endpoint')?.route.functionKey).toBe(catchAll!.fn);
  });

  it('takes an update of the notification policy by PUT or PATCH, in both versions, as Mastodon\'s routes do', () => {
    const functions: Record<string, { events: unknown[] }> = {};
    for (const r of loadRoutes().filter((r) => !r.stream)) (functions[r.fn] ??= { events: [] }).events.push({ httpApi: r.key });
    const router = new HttpApiRouter(httpApiRoutes(service(functions)));
    const fn = (method: string, path: string) => router.match(method, path)?.route.functionKey;
    expect(fn('PUT', '/api/v2/notifications/policy')).toBe(fn('PATCH', '/api/v2/notifications/policy'));
    expect(fn('PATCH', '/api/v1/notifications/policy')).toBe(fn('PUT', '/api/v1/notifications/policy'));
    expect(fn('PUT', '/api/v2/notifications/policy')).toBe('notificationsPolicyV2Update');
    expect(fn('PATCH', '/api/v1/notifications/policy')).toBe('notificationsPolicyUpdate');
  });
});

describe('the payload 2.0 event', () => {
  let server: Server;
  let base: string;
  let seen: (req: IncomingMessage, body: Buffer) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen(req, Buffer.concat(chunks));
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** The event for one raw request, as the front server makes it. */
  const eventFor = (method: string, target: string, headers: Record<string, string | string[]>, body: string | Buffer = ''): Promise<APIGatewayProxyEventV2> =>
    new Promise((resolve, reject) => {
      seen = (req, received) => {
        const path = target.split('?')[0]!;
        const match = fixture.match(method, path.startsWith('/') ? path : '/');
        resolve(httpApiEvent(req, received, match!, 'req-1'));
      };
      const [host, port] = base.split(':');
      const req = request({ host, port: Number(port), method, path: target, headers });
      req.on('error', reject);
      req.end(body);
    });

  it('carries the route key, raw path variables, the query, cookies apart and a text body as it is', async () => {
    const event = await eventFor('POST', '/api/v1/accounts/10%2F9/follow?a=1&a=2&b=x%20y', {
      'content-type': 'application/json',
      cookie: 'one=1; two=2',
      'X-Custom': 'yes',
    }, '{"reblogs":false}');
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('POST /api/v1/accounts/{id}/follow');
    expect(event.requestContext.routeKey).toBe(event.routeKey);
    expect(event.requestContext.requestId).toBe('req-1');
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.pathParameters).toEqual({ id: '10%2F9' });
    expect(event.rawPath).toBe('/api/v1/accounts/10%2F9/follow');
    expect(event.rawQueryString).toBe('a=1&a=2&b=x%20y');
    expect(event.queryStringParameters).toEqual({ a: '1,2', b: 'x y' });
    expect(event.cookies).toEqual(['one=1', 'two=2']);
    expect(event.headers.cookie).toBeUndefined();
    expect(event.headers['x-custom']).toBe('yes');
    expect(event.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(event.body).toBe('{"reblogs":false}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('base64-encodes a binary body, and gives a route without variables no pathParameters', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const event = await eventFor('GET', '/api/v1/accounts/verify_credentials', { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }, bytes);
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64')).toEqual(bytes);
    expect(event.pathParameters).toBeUndefined();
  });

  it('reads a path that starts with // as a path, not as a host name', async () => {
    const event = await eventFor('GET', '//evil.example/api?x=1', {});
    expect(event.rawPath).toBe('//evil.example/api');
    expect(event.requestContext.http.path).toBe('//evil.example/api');
    expect(event.rawQueryString).toBe('x=1');
    expect(event.routeKey).toBe('$default');
  });
});

describe('the answer API Gateway makes of a result', () => {
  it('answers the status, headers (names in lower case), Set-Cookie from cookies and the body', () => {
    const answer = httpAnswer({
      result: { statusCode: 201, headers: { 'Content-Type': 'text/plain', 'X-Count': 3 }, cookies: ['a=1; Path=/', 'b=2'], body: 'made' },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers).toEqual({ 'content-type': 'text/plain', 'x-count': '3', 'set-cookie': ['a=1; Path=/', 'b=2'] });
    expect(answer.body.toString()).toBe('made');
  });

  it('decodes a base64 body and defaults the type to JSON', () => {
    const answer = httpAnswer({ result: { statusCode: 200, body: Buffer.from([1, 2, 3]).toString('base64'), isBase64Encoded: true } });
    expect([...answer.body]).toEqual([1, 2, 3]);
    expect(answer.headers['content-type']).toBe('application/json');
  });

  it('takes a result without a status code for a 200 JSON body', () => {
    expect(httpAnswer({ result: { hello: 'world' } })).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' } });
    expect(httpAnswer({ result: { hello: 'world' } }).body.toString()).toBe('{"hello":"world"}');
    expect(httpAnswer({ result: 'plain' }).body.toString()).toBe('plain');
    expect(httpAnswer({ result: undefined }).body.toString()).toBe('null');
  });

  it('answers 500 Internal Server Error for a failed invocation or a result it cannot read', () => {
    for (const outcome of [
      { error: new Error('boom') },
      { result: { statusCode: 99 } },
      { result: { statusCode: '200' } },
      { result: { statusCode: 200, body: { not: 'a string' } } },
      { result: { statusCode: 200, headers: { bad: { nested: true } } } },
    ]) {
      const answer = httpAnswer(outcome);
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body.toString())).toEqual({ message: 'Internal Server Error' });
    }
  });

  it('answers 500 for a result over Lambda\'s 6 MB response payload, counted as Lambda counts it (the result as JSON)', () => {
    const answerOf = (body: string) => httpAnswer({ result: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body } });
    // 3.2 MB of quotes: 3.2 MB as a body, 6.4 MB once the result is JSON, as Lambda sends it.
    const quoted = answerOf(`"${'"'.repeat(3_200_000)}"`);
    expect(quoted.status).toBe(500);
    expect(JSON.parse(quoted.body.toString())).toEqual({ message: 'Internal Server Error' });
    expect(answerOf('x'.repeat(6_300_000)).status).toBe(500);
    expect(answerOf('x'.repeat(6_200_000)).status).toBe(200);
    expect(answerOf('x'.repeat(6_200_000)).body.length).toBe(6_200_000);
  });

  it('puts the configured CORS headers on an allowed origin\'s answer, in place of the function\'s', () => {
    const cors = httpApiCors({ httpApi: { cors: { allowedOrigins: ['*'], exposedResponseHeaders: ['Link'], allowedMethods: ['GET'] } } });
    const fromFunction = httpAnswer({ result: { statusCode: 200, headers: { 'Access-Control-Allow-Origin': 'https://wrong.example', 'X-A': '1' }, body: '' } });
    const answer = withCors(fromFunction, 'https://app.example', cors);
    expect(answer.headers).toEqual({ 'x-a': '1', 'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Link' });
    // Without an Origin, or without a configuration, the function's headers stand.
    expect(withCors(fromFunction, undefined, cors)).toBe(fromFunction);
    expect(withCors(fromFunction, 'https://app.example', undefined)).toBe(fromFunction);
    const listed = httpApiCors({ httpApi: { cors: { allowedOrigins: ['https://app.example'], allowCredentials: true } } });
    expect(withCors(fromFunction, 'https://other.example', listed)).toBe(fromFunction);
    expect(withCors(fromFunction, 'https://app.example', listed).headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-credentials': 'true',
      vary: 'Origin',
    });
  });
});
