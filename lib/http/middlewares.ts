// The steps of the HTTP stack, each a middy middleware: `before` steps read the request in the order
// http() `.use()`s them, `after` and `onError` steps shape the answer on the way out (middy runs them in the
// reverse order). A step keeps what it learnt on the request's state (`context.http`), which the next steps and
// the endpoint's `run` read. Each step is exported so that a test can run it alone on a request it builds.
//
// Errors: a `before` step or `run` throws; `errors()` turns what was thrown into a Reply (`{"error": ...}` with
// its status), and the outer steps then shape that Reply as they shape any other. An outer step's `onError`
// therefore does what its `after` does, since middy runs only the `onError` hooks once something has thrown.
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ZodError, type z } from 'zod';
import type { DbMeter } from '../aws';
import { config } from '../config';
import type { Account } from '../db/accounts';
import type { Token } from '../db/tokens';
import { seedKnownEmpty } from '../db/viewer_summary';
import { forbidden, HttpError, ItemTooLarge } from '../errors';
import { log } from '../log';
import { throughOrigin, viewerOf } from '../origin';
import { isNoAccessAddress } from '../policy/ip_blocks';
import { can, type Permission } from '../policy/roles';
import { loadSecrets, secrets } from '../secrets';
import { admit, bearerToken, type AuthMode } from './auth';
import { parseBody, parseQuery, rawBody, type BodyLimits } from './body';
import { compressAnswer } from './compress';
import { CORS_HEADERS, corsPath } from './cors';
import { withRateLimitHeaders, type Budget, type Throttle } from './ratelimit';
import { raw, Reply } from './reply';
import { validationMessage } from './validate';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/** What the steps learn about one request, in the order they learn it. */
export type HttpState = {
  /** The DynamoDB meter of this invocation (lib/aws/meter.ts), read by `metricsHeaders()`. */
  meter: DbMeter;
  started: number;
  busyBefore?: ReturnType<typeof performance.eventLoopUtilization>;
  path: string;
  requestId: string;
  /** `viewer()`: who asked, as the stage's origin says. */
  ip: string;
  host?: string;
  /** `bodyParsing()`: the query alone (for Link headers) and every parameter (query, body, path). */
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  rawBody?: Buffer;
  /** `authentication()`. */
  token?: Token;
  account?: Account;
  budget?: Budget;
  /** `validation()`: the parameters as the endpoint's schema made them. */
  input?: unknown;
};

export type HttpContext = Context & { http: HttpState };

/** What a response is on its way out: the endpoint's value, then a Reply (`errors()`), then API Gateway's result (`rendering()`). */
export type Outgoing = unknown;
export type HttpRequest = middy.Request<Event, Outgoing, Error, HttpContext>;
export type HttpMiddleware = middy.MiddlewareObj<Event, Outgoing, Error, HttpContext> & { name: string };

/** A fresh state for one request; `http()` puts it on the invocation's context. */
export function newState(event: Event, context: Context | undefined, meter: DbMeter): HttpState {
  return {
    meter,
    started: Date.now(),
    busyBefore: config.exposeMetrics ? performance.eventLoopUtilization() : undefined,
    path: event.rawPath ?? '/',
    requestId: context?.awsRequestId ?? event.requestContext?.requestId ?? '',
    ip: event.requestContext?.http?.sourceIp ?? '',
    query: {},
    params: {},
  };
}

/** An answer decided before the endpoint ran, other than an error (the IP rules' plain 403). */
export class Answered extends Error {
  constructor(readonly reply: Reply) {
    super(`answered ${reply.status}`);
  }
}

// --- on the way in ---------------------------------------------------------------------------------------------

/** Before anything reads the table or writes to it: a function without its secrets answers 500 and does nothing. */
export const secretsLoaded = (): HttpMiddleware => ({
  name: 'secretsLoaded',
  before: async () => {
    await loadSecrets();
  },
});

/**
 * Served only through the stage's one origin (lib/origin.ts): a request without the origin secret is 403. Where no
 * secret is configured (tests calling a handler), nothing is refused: a deployed stage always has one.
 */
export const originOnly = (): HttpMiddleware => ({
  name: 'originOnly',
  before: (request) => {
    if (secrets().originSecret && !throughOrigin(request.event.headers)) throw forbidden("This is served through the instance's own URL only");
  },
});

/** Who asked and which host they asked for, as the stage's one origin says when the request came through it. */
export const viewer = (): HttpMiddleware => ({
  name: 'viewer',
  before: (request) => {
    const seen = viewerOf(request.event.headers, request.event.requestContext?.http?.sourceIp);
    request.context.http.ip = seen.ip;
    request.context.http.host = seen.host;
  },
});

/**
 * The operator's `no_access` IP rules refuse everything from the range, before anything else is read, with what
 * Mastodon's Rack::Attack blocklist answers (lib/policy/ip_blocks.ts; the rules are kept per container).
 */
export const ipRules = (): HttpMiddleware => ({
  name: 'ipRules',
  before: async (request) => {
    if (await isNoAccessAddress(request.context.http.ip)) throw new Answered(raw('Forbidden\n', 'text/plain', 403));
  },
});

function pathParams(event: Event): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.pathParameters ?? {})) {
    if (v === undefined) continue;
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/**
 * The query, the body (JSON, form or multipart, within `limits`) and the path's parameters, merged in that order.
 * With `keepRawBody` the body stays bytes (`rawBody`), unparsed: an inbox's signature covers the exact bytes.
 */
export const bodyParsing = (limits: BodyLimits, keepRawBody = false): HttpMiddleware => ({
  name: 'bodyParsing',
  before: async (request) => {
    const { event } = request;
    const state = request.context.http;
    state.query = parseQuery(event.rawQueryString);
    const body = keepRawBody ? {} : await parseBody(event, limits);
    state.params = { ...state.query, ...body, ...pathParams(event) };
    if (keepRawBody) state.rawBody = rawBody(event);
  },
});

export type AuthOptions = {
  auth: AuthMode;
  /** Acceptable scopes: any one of them (or a parent scope) is enough. */
  scopes?: string[];
  throttles?: Throttle[];
  unconfirmed?: boolean;
  permission?: Permission;
};

/**
 * The token (header, or `access_token` parameter, which is then no parameter), its scopes, the rate limits, and
 * the moderator's permission where the endpoint needs one (403, as Mastodon's admin controllers answer).
 */
export const authentication = (options: AuthOptions): HttpMiddleware => ({
  name: 'authentication',
  before: async (request) => {
    const state = request.context.http;
    const rawToken = bearerToken(request.event, state.params);
    delete state.params.access_token;
    const admission = await admit(options.auth, options.scopes ?? [], rawToken, {
      ip: state.ip,
      path: state.path,
      route: options.throttles,
      unconfirmed: options.unconfirmed,
    });
    state.budget = admission.budget;
    state.token = admission.auth?.token;
    state.account = admission.auth?.account;
    if (options.permission && !(state.account && can(state.account, options.permission))) throw forbidden();
    // What the viewer's account says it has no need to hide is not read (lib/db/viewer_summary.ts).
    if (state.account) seedKnownEmpty(state.account);
  },
});

/** The parameters through the endpoint's schema: a ZodError (422, naming the field) when they do not fit. */
export const validation = (schema: z.ZodTypeAny | undefined): HttpMiddleware => ({
  name: 'validation',
  before: (request) => {
    const state = request.context.http;
    if (!schema) {
      state.input = state.params;
      return;
    }
    const parsed = schema.safeParse(state.params);
    if (!parsed.success) throw parsed.error;
    state.input = parsed.data;
  },
});

// --- on the way out --------------------------------------------------------------------------------------------

/** DynamoDB refuses an item over 400 KB: the input made a record too large, which is the client's to change. */
const isItemTooLarge = (err: unknown) =>
  err instanceof ItemTooLarge || err instanceof Error && err.name === 'ValidationException' && /item size/i.test(err.message);

/** middy's own answer when the invocation is about to reach its time limit. */
const isTimeout = (err: unknown) => err instanceof Error && err.name === 'TimeoutError' && (err.cause as { package?: string } | undefined)?.package === '@middy/core';

/** The one error mapper: what was thrown, as the Reply a client gets. */
export function errorReply(err: unknown, requestId = ''): Reply {
  if (err instanceof Answered) return err.reply;
  if (err instanceof HttpError) return new Reply(err.status, { error: err.message, ...err.extra }, err.headers);
  if (err instanceof ZodError) return new Reply(422, { error: validationMessage(err) });
  if (isItemTooLarge(err)) {
    log.warn('record too large', { err, requestId });
    return new Reply(422, { error: 'Validation failed: the record is too large' });
  }
  if (isTimeout(err)) {
    log.error('request reached the time limit', { requestId });
    return new Reply(503, { error: 'The server took too long to answer' });
  }
  log.error('unhandled error', { err, requestId });
  return new Reply(500, { error: 'Internal server error' });
}

/** The endpoint's value as a Reply (200 with it as JSON, unless it is one), and every error as `{"error": ...}`. */
export const errors = (): HttpMiddleware => ({
  name: 'errors',
  after: (request) => {
    const out = request.response;
    request.response = out instanceof Reply ? out : new Reply(200, out ?? {});
  },
  onError: (request) => {
    request.response = errorReply(request.error, request.context.http.requestId);
  },
});

const budgetHeaders = (request: HttpRequest) => {
  if (request.response instanceof Reply) request.response = withRateLimitHeaders(request.response, request.context.http.budget);
};
/** The X-RateLimit headers of the budget the request was counted against, on every answer, errors included. */
export const rateLimitHeaders = (): HttpMiddleware => ({ name: 'rateLimitHeaders', after: budgetHeaders, onError: budgetHeaders });

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);

/** A Reply as API Gateway's payload 2.0 result, with the headers every answer carries. */
export function render(reply: Reply, path: string): Result {
  const headers: Record<string, string> = { ...(corsPath(path) ? CORS_HEADERS : {}), ...reply.headers };
  // Set here, not left to the gateway in front: every deployment shape gets them.
  headers['X-Content-Type-Options'] = 'nosniff';
  // As Mastodon's API controllers: nothing is stored by caches unless the endpoint says it may be.
  if (!hasHeader(headers, 'cache-control')) headers['Cache-Control'] = 'no-store';
  if (reply.kind === 'json') {
    headers['Content-Type'] ??= 'application/json; charset=utf-8';
    return { statusCode: reply.status, headers, body: JSON.stringify(reply.body ?? {}), cookies: reply.cookies };
  }
  if (Buffer.isBuffer(reply.body)) {
    return { statusCode: reply.status, headers, body: reply.body.toString('base64'), isBase64Encoded: true, cookies: reply.cookies };
  }
  return { statusCode: reply.status, headers, body: String(reply.body ?? ''), cookies: reply.cookies };
}

const renderResponse = (request: HttpRequest) => {
  const reply = request.response;
  if (!(reply instanceof Reply)) return;
  const { path, requestId } = request.context.http;
  try {
    request.response = render(reply, path);
  } catch (err) {
    // A body JSON cannot carry (a cycle, a BigInt) is our bug: answer it as one.
    request.response = render(errorReply(err, requestId), path);
  }
};
/** The Reply rendered: CORS on API paths, nosniff, no-store unless the endpoint allows caching. */
export const rendering = (): HttpMiddleware => ({ name: 'rendering', after: renderResponse, onError: renderResponse });

const isResult = (response: unknown): response is Result => typeof response === 'object' && response !== null && 'statusCode' in response;

/** Which instance (container or local function instance) answered, made when the module loads. */
const INSTANCE = Math.random().toString(36).slice(2, 10);

const addMetrics = (request: HttpRequest) => {
  const result = request.response;
  if (!config.exposeMetrics || !isResult(result)) return;
  const { meter, started, busyBefore } = request.context.http;
  result.headers = {
    ...result.headers,
    'X-Db-Calls': String(meter.calls),
    'X-Db-Writes': String(meter.writes),
    'X-Handler-Ms': String(Date.now() - started),
    // The local stack's function instances are tested by it.
    'X-Instance': INSTANCE,
    // What bench/profile.ts splits a request's time by: waiting on DynamoDB, and this thread busy
    // (our code and the SDK's, parsing and rendering; one invocation at a time per thread, as in Lambda).
    'X-Db-Ms': (meter.waitMs ?? 0).toFixed(1),
    'X-Busy-Ms': busyBefore ? performance.eventLoopUtilization(busyBefore).active.toFixed(1) : '0.0',
    // What bench/cost.ts prices: capacity units as DynamoDB reports them, S3 requests, queue messages.
    'X-Db-Read-Units': String(meter.readUnits ?? 0),
    'X-Db-Write-Units': String(meter.writeUnits ?? 0),
    'X-S3-Requests': `${meter.s3Writes ?? 0}/${meter.s3Reads ?? 0}`,
    'X-Queue-Messages': String(meter.messages ?? 0),
  };
};
/** Where the stage exposes them (EXPOSE_METRICS: tests and benches), what the request cost, as headers. */
export const metricsHeaders = (): HttpMiddleware => ({ name: 'metricsHeaders', after: addMetrics, onError: addMetrics });

/** The client's Accept-Encoding (API Gateway's payload 2.0 lowercases header names; a test's event may not). */
export const acceptEncodingOf = (event: Event): string | undefined =>
  Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'accept-encoding')?.[1] ?? undefined;

const compress = (request: HttpRequest) => {
  if (isResult(request.response)) request.response = compressAnswer(request.response, acceptEncodingOf(request.event));
};
/** Brotli or gzip for a client that accepts it (lib/http/compress.ts). */
export const compression = (): HttpMiddleware => ({ name: 'compression', after: compress, onError: compress });

const logRequest = (request: HttpRequest) => {
  const { path, started, meter } = request.context.http;
  const status = isResult(request.response) ? request.response.statusCode : undefined;
  log.debug('request', { method: request.event.requestContext?.http?.method, path, status, ms: Date.now() - started, dbCalls: meter.calls });
};
/** One debug line per request, once its answer is final. */
export const requestLog = (): HttpMiddleware => ({ name: 'requestLog', after: logRequest, onError: logRequest });
