// The one HTTP stack every endpoint uses: parse, authenticate, validate, run,
// render, and turn every failure into `{"error": "..."}` with its status.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ZodError, z } from 'zod';
import { meterDb, type DbMeter } from '../aws';
import { config, requireStage } from '../config';
import type { Account } from '../db/accounts';
import type { Token } from '../db/tokens';
import { seedKnownEmpty } from '../db/viewer_summary';
import { forbidden, HttpError, ItemTooLarge } from '../errors';
import { isNoAccessAddress } from '../policy/ip_blocks';
import { can, type Permission } from '../policy/roles';
import { log, logInvocation } from '../log';
import { inRequestScope } from '../request_scope';
import { loadSecrets, secrets } from '../secrets';
import { throughOrigin, viewerOf } from '../origin';
import { admit, bearerToken, type AuthMode } from './auth';
import { compressAnswer } from './compress';
import { CORS_HEADERS, corsPath } from './cors';
import { guarded } from './guard';
import { DEFAULT_LIMITS, header, parseBody, parseCookies, parseQuery, rawBody, type BodyLimits } from './body';
import { withRateLimitHeaders, type Budget, type Throttle } from './ratelimit';
import { raw, Reply } from './reply';
import { validationMessage } from './validate';

export { Reply, json, html, redirect, raw } from './reply';
export type { UploadedFile } from './body';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** This instance's name, made when the module loads: one per Lambda container (or local worker thread). */
const INSTANCE = Math.random().toString(36).slice(2, 10);

export type Ctx<A extends AuthMode = AuthMode> = {
  event: Event;
  /** Lower-cased request headers. */
  headers: Record<string, string>;
  cookies: Record<string, string>;
  /** Query-string parameters alone (for Link headers). */
  query: Record<string, unknown>;
  path: string;
  ip: string;
  requestId: string;
  token: A extends 'user' | 'app' ? Token : Token | undefined;
  account: A extends 'user' ? Account : Account | undefined;
  /** The body's bytes as sent, for endpoints with the `rawBody` option (a signed Digest covers them); else undefined. */
  rawBody?: Buffer;
};

export type Options<S extends z.ZodTypeAny, A extends AuthMode> = {
  auth: A;
  /** Acceptable scopes: any one of them (or a parent scope) is enough. */
  scopes?: string[];
  schema?: S;
  limits?: Partial<BodyLimits>;
  /** This endpoint's own rate limits, besides the general budget: every request counts, per address (lib/http/ratelimit.ts). */
  throttles?: Throttle[];
  /**
   * Hand the body to `run` as bytes (`ctx.rawBody`) instead of parsing it into the input:
   * ActivityPub inboxes, whose signature covers the exact bytes and whose content types
   * (`application/ld+json; profile=...`) the parser does not take.
   */
  rawBody?: boolean;
  /** Admit a user whose e-mail is not confirmed yet (POST /api/v1/emails/confirmations): the one way it can fix it. */
  unconfirmed?: boolean;
  /** A moderator's endpoint: the account's role must hold this permission (lib/policy/roles.ts), else 403. */
  permission?: Permission;
  /**
   * Served only through the stage's one origin (the server-sent-event function URLs, behind the distribution):
   * a request without the origin secret is 403 (lib/origin.ts). Where no secret is configured (tests calling
   * a handler), nothing is refused: a deployed stage always has one (lib/secrets.ts).
   */
  originOnly?: boolean;
};

export type Run<S extends z.ZodTypeAny, A extends AuthMode> = (input: z.infer<S>, ctx: Ctx<A>) => Promise<unknown>;

/** The client's Accept-Encoding (API Gateway's payload 2.0 lowercases header names; a test's event may not). */
const acceptEncodingOf = (event: Event): string | undefined =>
  Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'accept-encoding')?.[1] ?? undefined;

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);

function render(reply: Reply, path: string): Result {
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

/** DynamoDB refuses an item over 400 KB: the input made a record too large, which is the client's to change. */
const isItemTooLarge = (err: unknown) =>
  err instanceof ItemTooLarge || err instanceof Error && err.name === 'ValidationException' && /item size/i.test(err.message);

export function errorReply(err: unknown, requestId = ''): Reply {
  if (err instanceof HttpError) return new Reply(err.status, { error: err.message, ...err.extra }, err.headers);
  if (err instanceof ZodError) return new Reply(422, { error: validationMessage(err) });
  if (isItemTooLarge(err)) {
    log.warn('record too large', { err, requestId });
    return new Reply(422, { error: 'Validation failed: the record is too large' });
  }
  log.error('unhandled error', { err, requestId });
  return new Reply(500, { error: 'Internal server error' });
}

const pathParams = (event: Event): Record<string, string> => {
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
};

/** Wraps `run` into a Lambda handler for API Gateway HTTP API (payload v2) events. */
export function http<S extends z.ZodTypeAny = z.ZodTypeAny, A extends AuthMode = AuthMode>(
  run: Run<S, A>,
  options: Options<S, A>,
) {
  // Built when a function's module loads: without STAGE the function refuses to start.
  requireStage();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const base = async (event: Event, context: Context): Promise<Result> => {
    logInvocation(context);
    const started = Date.now();
    const busyBefore = config.exposeMetrics ? performance.eventLoopUtilization() : undefined;
    const meter: DbMeter = { calls: 0, writes: 0 };
    const path = event.rawPath ?? '/';
    const requestId = context?.awsRequestId ?? event.requestContext?.requestId ?? '';
    let reply: Reply;
    try {
      reply = await guarded(() => meterDb(meter, () => inRequestScope(() => answer(event, path, requestId))));
    } catch (err) {
      reply = errorReply(err, requestId);
    }
    let result: Result;
    try {
      result = render(reply, path);
    } catch (err) {
      // A body JSON cannot carry (a cycle, a BigInt) is our bug: answer it as one.
      result = render(errorReply(err, requestId), path);
    }
    if (config.exposeMetrics) {
      result.headers = {
        ...result.headers,
        'X-Db-Calls': String(meter.calls),
        'X-Db-Writes': String(meter.writes),
        'X-Handler-Ms': String(Date.now() - started),
        // Which instance (container) answered: the local stack's warm pool is tested by it.
        'X-Instance': INSTANCE,
        // What bench/profile.ts splits a request's time by: waiting on DynamoDB, and this thread busy
        // (our code and the SDK's, parsing and rendering; one invocation at a time per thread, as in Lambda).
        'X-Db-Ms': (meter.waitMs ?? 0).toFixed(1),
        'X-Busy-Ms': performance.eventLoopUtilization(busyBefore!).active.toFixed(1),
        // What bench/cost.ts prices: capacity units as DynamoDB reports them, S3 requests, queue messages.
        'X-Db-Read-Units': String(meter.readUnits ?? 0),
        'X-Db-Write-Units': String(meter.writeUnits ?? 0),
        'X-S3-Requests': `${meter.s3Writes ?? 0}/${meter.s3Reads ?? 0}`,
        'X-Queue-Messages': String(meter.messages ?? 0),
      };
    }
    log.debug('request', { method: event.requestContext?.http?.method, path, status: result.statusCode, ms: Date.now() - started, dbCalls: meter.calls });
    return compressAnswer(result, acceptEncodingOf(event));
  };

  const answer = async (event: Event, path: string, requestId: string): Promise<Reply> => {
    let budget: Budget | undefined;
    try {
      // Before anything reads the table or writes to it: a function without its secrets answers 500 and does nothing.
      await loadSecrets();
      if (options.originOnly && secrets().originSecret && !throughOrigin(event.headers)) {
        throw forbidden("This is served through the instance's own URL only");
      }
      // Who asked, as the stage's one origin says when the request came through it (lib/origin.ts).
      const viewer = viewerOf(event.headers, event.requestContext?.http?.sourceIp);
      const ip = viewer.ip;
      // The operator's `no_access` IP rules refuse everything from the range, before anything else is read, with
      // what Mastodon's Rack::Attack blocklist answers (lib/policy/ip_blocks.ts; the rules are kept per container).
      if (await isNoAccessAddress(ip)) return raw('Forbidden\n', 'text/plain', 403);
      const query = parseQuery(event.rawQueryString);
      const body = options.rawBody ? {} : await parseBody(event, limits);
      const params = { ...query, ...body, ...pathParams(event) };
      const rawToken = bearerToken(event, params);
      delete params.access_token;
      const admission = await admit(options.auth, options.scopes ?? [], rawToken, { ip, path, route: options.throttles, unconfirmed: options.unconfirmed });
      const auth = admission.auth;
      budget = admission.budget;
      // As Mastodon's admin controllers: a token with the scope, of an account whose role lacks the permission, is 403.
      if (options.permission && !(auth?.account && can(auth.account, options.permission))) throw forbidden();
      // What the viewer's account says it has no need to hide is not read (lib/db/viewer_summary.ts).
      if (auth?.account) seedKnownEmpty(auth.account);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
      // The host the viewer asked for (what other servers sign), not the origin's own name.
      if (viewer.host !== undefined) headers.host = viewer.host;
      const ctx = {
        event,
        headers,
        cookies: parseCookies(event),
        query,
        path,
        ip,
        requestId,
        token: auth?.token,
        account: auth?.account,
        rawBody: options.rawBody ? rawBody(event) : undefined,
      } as Ctx<A>;
      let input: z.infer<S> = params;
      if (options.schema) {
        const parsed = options.schema.safeParse(params);
        if (!parsed.success) throw parsed.error;
        input = parsed.data;
      }
      const out = await run(input, ctx);
      return withRateLimitHeaders(out instanceof Reply ? out : new Reply(200, out ?? {}), budget);
    } catch (err) {
      return withRateLimitHeaders(errorReply(err, requestId), budget);
    }
  };
  return middy(base);
}

export { header };
