// The HTTP API (API Gateway v2) on the local stack: the front server
// (infra/local/stream-front.ts) routes each request to its function and invokes it
// in the local stack's one runner (infra/local/function-pool.ts), as API Gateway invokes
// the function in AWS, instead of passing the request over HTTP to serverless
// offline's hapi server. That hop made the stack's own work most of a
// request under load: a second HTTP parse and reply, hapi's routing and response
// pipeline, and, per request, a JWT decode attempt on every bearer token, two log
// lines and a date library (bench/profile.ts; README "Speed").
//
// What API Gateway does here, from its documentation:
//   - routes: the most specific match wins (a literal segment over a {variable}, a
//     {variable} over a greedy {proxy+}, a method over ANY), then `$default` ('*');
//   - the event is payload format 2.0: the route key, path parameters as they appear
//     in the path (not decoded), cookies in their own list, repeated query parameters
//     joined with commas, a body base64-encoded unless its type is text;
//   - the answer: a result without `statusCode` is a 200 JSON body; `cookies` become
//     Set-Cookie headers; a failed invocation is a 500 `{"message":"Internal Server Error"}`;
//   - CORS: with a configuration, an allowed Origin gets the configured headers on
//     every answer, whatever the function sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { z } from 'zod';
import { LAMBDA_RESPONSE_PAYLOAD_BYTES } from '../../lib/http/limits';
import { functionUrlEvent } from './lambda-stream';
import { preflightHeaders, type HttpApiCors } from './preflight';

type Segment = { kind: 'literal'; text: string } | { kind: 'variable'; name: string } | { kind: 'greedy'; name: string };

export type HttpApiRoute = {
  functionKey: string;
  /** `GET /api/v1/accounts/{id}`, or `$default`. */
  routeKey: string;
  /** Upper case, or ANY. */
  method: string;
  /** Undefined for `$default`. */
  segments: Segment[] | undefined;
};

const eventSchema = z
  .object({
    httpApi: z.union([z.string(), z.object({ method: z.string().optional(), path: z.string().optional() }).passthrough()]).optional(),
  })
  .passthrough();

const functionSchema = z.object({ events: z.array(z.unknown()).optional() }).passthrough();

function parseSegments(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((part): Segment => {
      const variable = /^\{([^}+]+)(\+)?\}$/.exec(part);
      if (!variable) return { kind: 'literal', text: part };
      return variable[2] ? { kind: 'greedy', name: variable[1] ?? '' } : { kind: 'variable', name: variable[1] ?? '' };
    });
}

/** One route from an `httpApi` event: `'GET /path'`, `'*'`, or `{ method, path }`. */
function routeOf(functionKey: string, spec: string | { method?: string; path?: string }): HttpApiRoute | undefined {
  let method: string;
  let path: string;
  if (typeof spec === 'string') {
    if (spec.trim() === '*') return { functionKey, routeKey: '$default', method: 'ANY', segments: undefined };
    [method = '', path = ''] = spec.trim().split(/\s+/);
  } else {
    method = spec.method ?? '*';
    path = spec.path ?? '';
  }
  method = method === '*' ? 'ANY' : method.toUpperCase();
  if (path === '*' || path === '') return { functionKey, routeKey: '$default', method: 'ANY', segments: undefined };
  return { functionKey, routeKey: `${method} ${path}`, method, segments: parseSegments(path) };
}

/** Every `httpApi` route of the service. */
export function httpApiRoutes(service: { getAllFunctions(): string[]; getFunction(key: string): unknown }): HttpApiRoute[] {
  const routes: HttpApiRoute[] = [];
  for (const key of service.getAllFunctions()) {
    for (const raw of functionSchema.parse(service.getFunction(key)).events ?? []) {
      const parsed = eventSchema.safeParse(raw);
      const spec = parsed.success ? parsed.data.httpApi : undefined;
      if (spec === undefined) continue;
      const route = routeOf(key, spec);
      if (route) routes.push(route);
    }
  }
  return routes;
}

/** How specific a matching route is: per segment literal 2, variable 1, greedy 0; then a method over ANY. */
type Rank = number[];

const better = (a: Rank, b: Rank) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? -1;
    const y = b[i] ?? -1;
    if (x !== y) return x > y;
  }
  return false;
};

function matchSegments(segments: Segment[], parts: string[]): { params: Record<string, string>; rank: Rank } | undefined {
  const params: Record<string, string> = {};
  const rank: Rank = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.kind === 'greedy') {
      const rest = parts.slice(i);
      if (rest.length === 0 || rest.join('/') === '') return undefined;
      params[segment.name] = rest.join('/');
      rank.push(0);
      return { params, rank };
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.kind === 'literal') {
      if (part !== segment.text) return undefined;
      rank.push(2);
    } else {
      if (part === '') return undefined;
      params[segment.name] = part;
      rank.push(1);
    }
  }
  return parts.length === segments.length ? { params, rank } : undefined;
}

export type RouteMatch = { route: HttpApiRoute; pathParameters: Record<string, string> | undefined };

/** Routes requests as the HTTP API does. */
export class HttpApiRouter {
  private readonly byLiteralPath = new Map<string, HttpApiRoute[]>();
  private readonly withVariables: HttpApiRoute[] = [];
  private readonly fallback: HttpApiRoute | undefined;

  constructor(routes: HttpApiRoute[]) {
    for (const route of routes) {
      if (!route.segments) continue;
      if (route.segments.every((s) => s.kind === 'literal')) {
        const path = `/${route.segments.map((s) => (s.kind === 'literal' ? s.text : '')).join('/')}`;
        this.byLiteralPath.set(path, [...(this.byLiteralPath.get(path) ?? []), route]);
      } else {
        this.withVariables.push(route);
      }
    }
    this.fallback = routes.find((r) => !r.segments);
  }

  get size(): number {
    return [...this.byLiteralPath.values()].reduce((n, rs) => n + rs.length, 0) + this.withVariables.length + (this.fallback ? 1 : 0);
  }

  match(method: string, rawPath: string): RouteMatch | undefined {
    // As the local stack always has (hapi's stripTrailingSlash): `/api/v1/instance/` is `/api/v1/instance`.
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const literal = this.byLiteralPath.get(path);
    const exact = literal?.find((r) => r.method === method) ?? literal?.find((r) => r.method === 'ANY');
    if (exact) return { route: exact, pathParameters: undefined };
    const parts = path.split('/').slice(1);
    let best: { route: HttpApiRoute; params: Record<string, string>; rank: Rank } | undefined;
    for (const route of this.withVariables) {
      if (route.method !== method && route.method !== 'ANY') continue;
      const found = matchSegments(route.segments!, parts);
      if (!found) continue;
      const rank = [...found.rank, route.method === 'ANY' ? 0 : 1];
      if (!best || better(rank, best.rank)) best = { route, params: found.params, rank };
    }
    if (best) return { route: best.route, pathParameters: best.params };
    return this.fallback ? { route: this.fallback, pathParameters: undefined } : undefined;
  }
}

/** The event API Gateway delivers (payload format 2.0) for a request that matched `match`. */
export function httpApiEvent(req: IncomingMessage, body: Buffer, match: RouteMatch, requestId: string): APIGatewayProxyEventV2 {
  const event = functionUrlEvent(req, body, { requestId });
  event.routeKey = match.route.routeKey;
  event.requestContext.routeKey = match.route.routeKey;
  event.requestContext.apiId = 'local';
  if (match.pathParameters) event.pathParameters = match.pathParameters;
  return event;
}

export type HttpAnswer = { status: number; headers: Record<string, string | string[]>; body: Buffer };

const INTERNAL_ERROR: HttpAnswer = {
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ message: 'Internal Server Error' })),
};

/** What the HTTP API answers a request no route takes. */
export const NOT_FOUND: HttpAnswer = {
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ message: 'Not Found' })),
};

/**
 * Whether Lambda would refuse this result (its JSON over the 6 MB response payload limit): the
 * invocation fails, so API Gateway answers its 500 instead. Exact only when it could matter: a
 * string of n UTF-16 units is at most 6n bytes of JSON, so small results are not serialized again.
 */
export function overResponseLimit(result: unknown): boolean {
  if (typeof result === 'object' && result !== null) {
    const { body, headers, cookies } = result as Record<string, unknown>;
    const units = (typeof body === 'string' ? body.length : 0) + JSON.stringify(headers ?? null).length + JSON.stringify(cookies ?? null).length;
    if (units * 6 + 4096 <= LAMBDA_RESPONSE_PAYLOAD_BYTES) return false;
  }
  return Buffer.byteLength(JSON.stringify(result) ?? '') > LAMBDA_RESPONSE_PAYLOAD_BYTES;
}

/** What API Gateway answers for a function's result (payload format 2.0), or for an invocation that failed. */
export function httpAnswer(outcome: { result: unknown } | { error: unknown }): HttpAnswer {
  if ('error' in outcome) return INTERNAL_ERROR;
  const { result } = outcome;
  if (overResponseLimit(result)) return INTERNAL_ERROR;
  const hasStatus = typeof result === 'object' && result !== null && 'statusCode' in result;
  if (!hasStatus) {
    // A result without a status code is the body of a 200 JSON answer.
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) };
  }
  // Checked by hand rather than with a schema: this runs on every request of the local stack.
  const { statusCode, headers = {}, cookies = [], body = '', isBase64Encoded = false } = result as Record<string, unknown>;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) return INTERNAL_ERROR;
  if (typeof headers !== 'object' || headers === null || !Array.isArray(cookies) || typeof body !== 'string') return INTERNAL_ERROR;
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return INTERNAL_ERROR;
    out[name.toLowerCase()] = String(value);
  }
  out['content-type'] ??= 'application/json';
  if (cookies.length > 0) out['set-cookie'] = cookies.map(String);
  return { status: statusCode, headers: out, body: isBase64Encoded === true ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8') };
}

/** With a CORS configuration, an allowed origin's answer carries the configured headers instead of the function's. */
export function withCors(answer: HttpAnswer, origin: string | undefined, cors: HttpApiCors | undefined): HttpAnswer {
  if (!cors || origin === undefined) return answer;
  const configured = preflightHeaders(cors, origin);
  if (!configured) return answer;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (!name.startsWith('access-control-')) headers[name] = value;
  // The preflight's own headers (allowed methods and headers, max age) are not repeated on an answer.
  for (const name of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary']) {
    const value = configured[name];
    if (value === undefined) continue;
    headers[name] = name === 'vary' && typeof headers.vary === 'string' ? `${headers.vary}, ${value}` : value;
  }
  return { ...answer, headers };
}

/** Writes an answer (HEAD gets the headers alone). */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: HttpAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}
