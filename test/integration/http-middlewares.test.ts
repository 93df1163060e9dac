// Each step of the HTTP stack (lib/http/middlewares.ts) run alone, on a request built by hand, as middy hands it
// one; and the order http() composes them in, seen from outside.
import { z } from 'zod';
import { HttpError } from '../../lib/errors';
import { http } from '../../lib/http';
import {
  Answered,
  authentication,
  bodyParsing,
  compression,
  errors,
  metricsHeaders,
  newState,
  rateLimitHeaders,
  rendering,
  validation,
  viewer,
  type HttpMiddleware,
  type HttpRequest,
  type Result,
} from '../../lib/http/middlewares';
import { raw, Reply } from '../../lib/http/reply';
import { DEFAULT_LIMITS } from '../../lib/http/body';
import { buildEvent, call, type Call } from '../support/http';
import { aUser } from '../support/factories';

process.env.EXPOSE_METRICS = '1';

function requestOf(c: Call = {}): HttpRequest {
  const event = buildEvent({ method: 'GET', path: '/api/v1/test', ...c });
  return {
    event,
    context: { http: newState(event, undefined, { calls: 0, writes: 0 }) } as HttpRequest['context'],
    response: undefined,
    error: null,
    internal: {},
  };
}

/** Runs one hook of one step, as middy would. */
async function hook(step: HttpMiddleware, which: 'before' | 'after' | 'onError', request: HttpRequest) {
  const fn = step[which];
  if (!fn) throw new Error(`${step.name} has no ${which}`);
  return fn(request);
}

async function thrownBy(step: HttpMiddleware, request: HttpRequest): Promise<unknown> {
  try {
    await hook(step, 'before', request);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('errors()', () => {
  it("makes the endpoint's value a 200 JSON reply, and keeps a Reply it returned", async () => {
    const request = requestOf();
    request.response = { ok: true };
    await hook(errors(), 'after', request);
    expect(request.response).toEqual(new Reply(200, { ok: true }));
    const own = raw('hello', 'text/plain', 201);
    request.response = own;
    await hook(errors(), 'after', request);
    expect(request.response).toBe(own);
  });

  it.each([
    ['an HttpError', new HttpError(404, 'Record not found'), 404, { error: 'Record not found' }],
    ['a ZodError', z.object({ limit: z.number() }).safeParse({}).error, 422, { error: expect.stringMatching(/limit/i) }],
    ['anything else', new TypeError('x is undefined'), 500, { error: 'Internal server error' }],
    ['an item DynamoDB finds too large', Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException' }), 422, { error: 'Validation failed: the record is too large' }],
    ["middy's time limit", Object.assign(new Error('aborted', { cause: { package: '@middy/core' } }), { name: 'TimeoutError' }), 503, { error: 'The server took too long to answer' }],
  ])('turns %s into {"error": ...} with its status', async (_what, error, status, body) => {
    const request = requestOf();
    request.error = error as Error;
    await hook(errors(), 'onError', request);
    expect(request.response).toBeInstanceOf(Reply);
    expect(request.response).toMatchObject({ status, body });
  });

  it('answers what a step decided without an error as it is', async () => {
    const request = requestOf();
    request.error = new Answered(raw('Forbidden\n', 'text/plain', 403));
    await hook(errors(), 'onError', request);
    expect(request.response).toMatchObject({ status: 403, body: 'Forbidden\n' });
  });
});

describe('rateLimitHeaders()', () => {
  const budget = { limit: 300, count: 12, resetAt: new Date('2026-11-29T03:00:00Z') };

  it("adds the request's budget to any reply, an error's too", async () => {
    for (const which of ['after', 'onError'] as const) {
      const request = requestOf();
      request.context.http.budget = budget;
      request.response = new Reply(which === 'after' ? 200 : 404, {});
      await hook(rateLimitHeaders(), which, request);
      expect((request.response as Reply).headers).toMatchObject({ 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '288' });
    }
  });

  it("leaves a 429's own headers, and adds nothing without a budget", async () => {
    const request = requestOf();
    request.context.http.budget = budget;
    request.response = new Reply(429, { error: 'Too many requests' }, { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0' });
    await hook(rateLimitHeaders(), 'onError', request);
    expect((request.response as Reply).headers).toEqual({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0' });
    const free = requestOf();
    free.response = new Reply(200, {});
    await hook(rateLimitHeaders(), 'after', free);
    expect((free.response as Reply).headers).toEqual({});
  });
});

describe('rendering()', () => {
  it('renders a reply with CORS on API paths, nosniff and no-store', async () => {
    const request = requestOf({ path: '/api/v1/instance' });
    request.response = new Reply(200, { a: 1 });
    await hook(rendering(), 'after', request);
    const result = request.response as Result;
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"a":1}');
    expect(result.headers).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      'Content-Type': 'application/json; charset=utf-8',
    });
  });

  it("keeps an endpoint's Cache-Control, and gives pages outside the API no CORS", async () => {
    const request = requestOf({ path: '/@alice' });
    request.response = raw('<p>hi</p>', 'text/html', 200, { 'Cache-Control': 'public, max-age=60' });
    await hook(rendering(), 'after', request);
    const result = request.response as Result;
    expect(result.headers?.['Cache-Control']).toBe('public, max-age=60');
    expect(result.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
  });

  it('answers a body JSON cannot carry as our own error, a 500', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const request = requestOf();
    request.response = new Reply(200, cyclic);
    await hook(rendering(), 'after', request);
    expect(request.response).toMatchObject({ statusCode: 500, body: '{"error":"Internal server error"}' });
  });
});

describe('compression()', () => {
  const big = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'toot '.repeat(400) }) };

  it('compresses a large JSON answer for a client that accepts brotli, and says it varies', async () => {
    const request = requestOf({ headers: { 'accept-encoding': 'gzip, br' } });
    request.response = { ...big };
    await hook(compression(), 'after', request);
    expect(request.response).toMatchObject({ isBase64Encoded: true, headers: { 'Content-Encoding': 'br', Vary: 'Accept-Encoding' } });
  });

  it('leaves it plain for a client that accepts no encoding', async () => {
    const request = requestOf();
    request.response = { ...big };
    await hook(compression(), 'onError', request);
    expect(request.response).toMatchObject({ body: big.body, headers: { Vary: 'Accept-Encoding' } });
  });
});

describe('metricsHeaders()', () => {
  it("reports the request's DynamoDB calls and writes from its meter", async () => {
    const request = requestOf();
    Object.assign(request.context.http.meter, { calls: 3, writes: 1, readUnits: 1.5 });
    request.response = { statusCode: 200, headers: {}, body: '{}' };
    await hook(metricsHeaders(), 'after', request);
    expect((request.response as Result).headers).toMatchObject({ 'X-Db-Calls': '3', 'X-Db-Writes': '1', 'X-Db-Read-Units': '1.5' });
  });
});

describe('viewer() and bodyParsing()', () => {
  it('reads the address, then merges query, body and path parameters, the path winning', async () => {
    const request = requestOf({
      method: 'POST',
      query: { limit: '5', id: 'query' },
      json: { status: 'hello', id: 'body' },
      pathParameters: { id: '42' },
      sourceIp: '203.0.113.9',
    });
    await hook(viewer(), 'before', request);
    await hook(bodyParsing(DEFAULT_LIMITS), 'before', request);
    expect(request.context.http.ip).toBe('203.0.113.9');
    expect(request.context.http.query).toEqual({ limit: '5', id: 'query' });
    expect(request.context.http.params).toEqual({ limit: '5', status: 'hello', id: '42' });
  });

  it("keeps an inbox's body as the bytes sent", async () => {
    const request = requestOf({ method: 'POST', body: { data: '{"type":"Follow"}', contentType: 'application/activity+json' } });
    await hook(bodyParsing(DEFAULT_LIMITS, true), 'before', request);
    expect(request.context.http.rawBody?.toString()).toBe('{"type":"Follow"}');
    expect(request.context.http.params).toEqual({});
  });

  it('refuses a body it cannot read with a client error', async () => {
    const request = requestOf({ method: 'POST', body: { data: '{"status":', contentType: 'application/json' } });
    const err = await thrownBy(bodyParsing(DEFAULT_LIMITS), request);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBeGreaterThanOrEqual(400);
    expect((err as HttpError).status).toBeLessThan(500);
  });
});

describe('authentication()', () => {
  it('admits a token with the scope, and takes access_token out of the parameters', async () => {
    const { token, account } = await aUser({ scopes: ['read'] });
    const request = requestOf({ query: { access_token: token } });
    await hook(bodyParsing(DEFAULT_LIMITS), 'before', request);
    await hook(authentication({ auth: 'user', scopes: ['read:accounts'] }), 'before', request);
    expect(request.context.http.account?.id).toBe(account.id);
    expect(request.context.http.params).toEqual({});
  });

  it('refuses no token (401), a token without the scope (403) and a user without the permission (403)', async () => {
    const { token } = await aUser({ scopes: ['read'] });
    const none = requestOf();
    expect(await thrownBy(authentication({ auth: 'user' }), none)).toMatchObject({ status: 401 });
    const narrow = requestOf({ token });
    expect(await thrownBy(authentication({ auth: 'user', scopes: ['write:statuses'] }), narrow)).toMatchObject({ status: 403 });
    const plain = requestOf({ token });
    expect(await thrownBy(authentication({ auth: 'user', scopes: ['read'], permission: 'manage_reports' }), plain)).toMatchObject({ status: 403 });
  });
});

describe('validation()', () => {
  const schema = z.object({ limit: z.coerce.number().int().max(40) });

  it("hands run the schema's output", async () => {
    const request = requestOf();
    request.context.http.params = { limit: '20' };
    await hook(validation(schema), 'before', request);
    expect(request.context.http.input).toEqual({ limit: 20 });
  });

  it('throws what errors() makes a 422', async () => {
    const request = requestOf();
    request.context.http.params = { limit: '400' };
    const err = await thrownBy(validation(schema), request);
    const failed = requestOf();
    failed.error = err as Error;
    await hook(errors(), 'onError', failed);
    expect(failed.response).toMatchObject({ status: 422 });
  });
});

describe('the order http() composes them in', () => {
  it('an error of an early step still gets the rendering, the metrics and the compression', async () => {
    const endpoint = http(async () => ({ never: true }), { auth: 'user' });
    const res = await call(endpoint, { path: '/api/v1/test', headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'The access token is invalid' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-db-calls']).toBeDefined();
    expect(res.headers.vary).toBe('Accept-Encoding');
  });

  it("run gets the validated input and the request's context", async () => {
    const { token, account } = await aUser();
    const seen: unknown[] = [];
    const endpoint = http(async (input, ctx) => {
      seen.push(input, ctx.account?.id, ctx.query, ctx.headers['x-custom']);
      return raw('done', 'text/plain');
    }, { auth: 'user', schema: z.object({ n: z.coerce.number() }) });
    const res = await call(endpoint, { path: '/api/v1/test', query: { n: '7' }, token, headers: { 'X-Custom': 'yes' } });
    expect(res.status).toBe(200);
    expect(seen).toEqual([{ n: 7 }, account.id, { n: '7' }, 'yes']);
  });
});
