// The one HTTP stack every endpoint uses: a middy chain of the steps in ./middlewares.ts, `.use()`d in one order
// for every handler (parse, authenticate, validate, run, then render and shape the answer), with every failure
// turned into `{"error": "..."}` with its status by one error mapper.
//
// Three things must enclose the whole invocation, middlewares included, which a before/after hook cannot do:
// the request scope (what this invocation already read, lib/request_scope.ts), the DynamoDB meter, and the
// guard that settles an error escaping the request by any path (./guard.ts). They wrap the middy handler.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { z } from 'zod';
import { meterDb, type DbMeter } from '../aws';
import { requireStage } from '../config';
import type { Account } from '../db/accounts';
import type { Token } from '../db/tokens';
import { logContext } from '../log';
import type { Permission } from '../policy/roles';
import { inRequestScope } from '../request_scope';
import type { AuthMode } from './auth';
import { DEFAULT_LIMITS, header, parseCookies, type BodyLimits } from './body';
import { compressAnswer } from './compress';
import { guarded } from './guard';
import {
  acceptEncodingOf,
  authentication,
  bodyParsing,
  compression,
  errorReply,
  errors,
  ipRules,
  metricsHeaders,
  newState,
  originOnly,
  rateLimitHeaders,
  render,
  rendering,
  requestLog,
  secretsLoaded,
  validation,
  viewer,
  type Event,
  type HttpContext,
  type HttpState,
  type Result,
} from './middlewares';
import type { Throttle } from './ratelimit';

export { Reply, json, html, redirect, raw } from './reply';
export type { UploadedFile } from './body';
export { errorReply };

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

/** What `run` is handed besides its input: the request as the steps read it. */
function ctxOf<A extends AuthMode>(event: Event, state: HttpState): Ctx<A> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  // The host the viewer asked for (what other servers sign), not the origin's own name.
  if (state.host !== undefined) headers.host = state.host;
  return {
    event,
    headers,
    cookies: parseCookies(event),
    query: state.query,
    path: state.path,
    ip: state.ip,
    requestId: state.requestId,
    token: state.token,
    account: state.account,
    rawBody: state.rawBody,
  } as Ctx<A>;
}

/** Wraps `run` into a Lambda handler for API Gateway HTTP API (payload v2) events. */
export function http<S extends z.ZodTypeAny = z.ZodTypeAny, A extends AuthMode = AuthMode>(
  run: Run<S, A>,
  options: Options<S, A>,
) {
  // Built when a function's module loads: without STAGE the function refuses to start.
  requireStage();
  const chain = middy<Event, unknown, Error, HttpContext>()
    .use(logContext())
    .use(requestLog())
    .use(compression())
    .use(metricsHeaders())
    .use(rendering())
    .use(rateLimitHeaders())
    .use(errors())
    .use(secretsLoaded())
    .use(options.originOnly ? [originOnly()] : [])
    .use(viewer())
    .use(ipRules())
    .use(bodyParsing({ ...DEFAULT_LIMITS, ...options.limits }, options.rawBody))
    .use(authentication(options))
    .use(validation(options.schema))
    .handler((event: Event, context: HttpContext) => run(context.http.input as z.infer<S>, ctxOf<A>(event, context.http)));

  return async (event: Event, context?: Context): Promise<Result> => {
    const meter: DbMeter = { calls: 0, writes: 0 };
    const state = newState(event, context, meter);
    // The runtime's context, unchanged, under this invocation's own state.
    const invocation: HttpContext = Object.assign(Object.create(context ?? null) as Context, { http: state });
    try {
      return (await guarded(() => meterDb(meter, () => inRequestScope(() => chain(event, invocation))))) as Result;
    } catch (err) {
      // An error that escaped the chain by a path no step sees (an emitter's callback, a promise nobody awaited).
      return compressAnswer(render(errorReply(err, state.requestId), state.path), acceptEncodingOf(event));
    }
  };
}

export { header };
