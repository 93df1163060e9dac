// The streaming counterpart of http(): a Lambda handler behind a function URL in
// RESPONSE_STREAM mode (payload 2.0 events, as the HTTP API's) whose
// `run(input, ctx, out)` writes the response as it goes (server-sent events).
//
//   export const handler = streamHttp(run, { auth: 'user', scopes: ['read:statuses'] });
//
// The request first passes through http() itself, so query and body parsing, the
// token, the scope check, validation and the `{"error": ...}` answers are the very
// same code as every other endpoint's. An error before the first byte is answered
// like any endpoint's error; after it the status has gone out, so the stream ends.
//
// Underneath: `awslambda.streamifyResponse` and `awslambda.HttpResponseStream.from`,
// globals of the Lambda Node.js runtime. The local stack provides the same globals
// (infra/local/stream-offline.cjs), and so do the tests (infra/local/lambda-stream.ts).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Writable } from 'node:stream';
import type { z } from 'zod';
import { requireStage } from '../config';
import { log } from '../log';
import { guarded } from './guard';
import type { AuthMode } from './auth';
import { errorReply, http, Reply, type Ctx, type Options } from './index';

type Event = APIGatewayProxyEventV2;

/** Why a stream's `signal` aborted: the client went away, or the invocation is about to reach its time limit. */
export type GoneReason = 'client' | 'deadline';

/** What `run` writes the response to. */
export interface StreamOut {
  /** Sets the status code; only before the first write. */
  status(code: number): void;
  /** Sets a response header; only before the first write. */
  header(name: string, value: string): void;
  /**
   * Sends a chunk (the status and headers go out with the first). Resolves once the
   * runtime has taken it: true, or false when the stream is gone (nothing more will arrive).
   */
  write(chunk: string | Uint8Array): Promise<boolean>;
  /** Whether the status and headers have gone out. */
  readonly started: boolean;
  /** Aborts when the client has gone or the deadline is near; `gone` says which. */
  readonly signal: AbortSignal;
  readonly gone: GoneReason | undefined;
  /** Milliseconds left before Lambda stops the invocation. */
  remainingMs(): number;
}

export type StreamRun<S extends z.ZodTypeAny, A extends AuthMode> = (input: z.infer<S>, ctx: Ctx<A>, out: StreamOut) => Promise<void>;

export type StreamOptions<S extends z.ZodTypeAny, A extends AuthMode> = Options<S, A> & {
  /**
   * How long before the function's timeout `signal` aborts with `deadline`, so that
   * `run` can end the response cleanly (an SSE client then reconnects with Last-Event-ID).
   */
  deadlineMarginMs?: number;
};

const DEFAULT_DEADLINE_MARGIN_MS = 5_000;

/** The response stream as the runtime hands it over: a Node writable (in AWS, an HTTP request to the runtime API). */
type RawStream = Writable;

/** The runtime's globals, where there are any (declared by @types/aws-lambda). */
// A bundled dependency may define a partial `awslambda` global: only the runtime's has streamifyResponse.
const runtime = (): typeof awslambda | undefined =>
  typeof awslambda !== 'undefined' && typeof awslambda?.streamifyResponse === 'function' ? awslambda : undefined;

class StreamResponse implements StreamOut {
  private statusCode = 200;
  private headers: Record<string, string>;
  private stream: RawStream | undefined;
  private ended = false;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  gone: GoneReason | undefined;

  constructor(
    private readonly rt: typeof awslambda,
    private readonly raw: RawStream,
    private readonly context: Context,
    private readonly baseHeaders: Record<string, string>,
    marginMs: number,
  ) {
    this.headers = { ...baseHeaders };
    // A close or error we did not cause by ending: the client is gone. (Whether the
    // runtime reports it depends on the runtime; the local stack does.) The error
    // listener also keeps an error on the stream from crashing the process.
    raw.on('close', () => this.lose('client'));
    raw.on('error', () => this.lose('client'));
    this.armDeadline(marginMs);
  }

  /** Aborts `marginMs` before the deadline. Timers may fire a millisecond early by the wall clock: then it waits the rest. */
  private armDeadline(marginMs: number) {
    const remaining = this.remainingMs();
    if (!Number.isFinite(remaining)) return;
    this.timer = setTimeout(() => {
      if (this.remainingMs() > marginMs) this.armDeadline(marginMs);
      else this.lose('deadline');
    }, Math.max(0, remaining - marginMs));
  }

  get started() {
    return this.stream !== undefined;
  }

  get signal() {
    return this.controller.signal;
  }

  remainingMs() {
    return typeof this.context?.getRemainingTimeInMillis === 'function' ? this.context.getRemainingTimeInMillis() : Infinity;
  }

  status(code: number) {
    this.assertNotStarted('status');
    this.statusCode = code;
  }

  header(name: string, value: string) {
    this.assertNotStarted('headers');
    for (const key of Object.keys(this.headers)) if (key.toLowerCase() === name.toLowerCase()) delete this.headers[key];
    this.headers[name] = value;
  }

  async write(chunk: string | Uint8Array): Promise<boolean> {
    if (this.ended) throw new Error('write after the response ended');
    if (this.gone === 'client' || this.raw.destroyed) return false;
    // The metadata prelude (status, headers) goes out right before the first chunk.
    this.stream ??= this.rt.HttpResponseStream.from(this.raw, { statusCode: this.statusCode, headers: this.headers });
    const stream = this.stream;
    return new Promise<boolean>((resolve) => {
      stream.write(chunk, (err) => resolve(!err));
    });
  }

  /** Answers with a whole reply instead of a stream (the errors before the first byte). */
  async reply(statusCode: number, headers: Record<string, string>, body: string): Promise<void> {
    this.statusCode = statusCode;
    this.headers = headers;
    await this.write(body);
  }

  /** Renders an error as http() does: `{"error": ...}` with its status, over the base (CORS) headers. */
  async replyError(err: unknown, requestId: string): Promise<void> {
    const reply = errorReply(err, requestId);
    const headers = { ...this.baseHeaders, 'Content-Type': 'application/json; charset=utf-8', ...reply.headers };
    await this.reply(reply.status, headers, JSON.stringify(reply.body ?? {}));
  }

  /** Ends the response; the runtime waits for it before the invocation completes. */
  async end(): Promise<void> {
    clearTimeout(this.timer);
    if (this.ended) return;
    // Without a first write no prelude goes out, and a function URL never answers.
    if (!this.started && !this.raw.destroyed) await this.write('');
    this.ended = true;
    if (this.raw.destroyed) return;
    await new Promise<void>((resolve) => {
      this.raw.on('close', () => resolve());
      this.raw.end(() => resolve());
    });
  }

  private lose(reason: GoneReason) {
    if (this.ended || this.gone) return;
    this.gone = reason;
    clearTimeout(this.timer);
    this.controller.abort(reason);
  }

  private assertNotStarted(what: string) {
    if (this.started) throw new Error(`${what} cannot change after the first write`);
  }
}

/** Wraps `run` into a streaming Lambda handler for a function URL in RESPONSE_STREAM mode. */
export function streamHttp<S extends z.ZodTypeAny = z.ZodTypeAny, A extends AuthMode = AuthMode>(
  run: StreamRun<S, A>,
  options: StreamOptions<S, A>,
) {
  // As http(): without STAGE the function refuses to start, in the runtime or not.
  requireStage();
  const rt = runtime();
  if (!rt) {
    // Importing a handler module (to call its `run`) works anywhere; invoking it needs the runtime.
    return async (): Promise<never> => {
      throw new Error('streamHttp needs the awslambda globals of the Lambda runtime (locally: infra/local/lambda-stream.ts)');
    };
  }
  const { deadlineMarginMs = DEFAULT_DEADLINE_MARGIN_MS, ...httpOptions } = options;
  // http() answers either its own error, or this marker once the request passed every check.
  const admitted = new WeakMap<Event, { input: z.infer<S>; ctx: Ctx<A> }>();
  const gate = http<S, A>(async (input, ctx) => {
    admitted.set(ctx.event, { input, ctx });
    return new Reply(200, '', {}, [], 'raw');
  }, { ...httpOptions, originOnly: true });

  const handle = async (event: Event, raw: RawStream, context: Context): Promise<void> => {
    // The invocation is over when the response has ended, not when idle sockets close.
    if (context) context.callbackWaitsForEmptyEventLoop = false;
    const requestId = context?.awsRequestId ?? event.requestContext?.requestId ?? '';
    const checked: APIGatewayProxyStructuredResultV2 = await gate(event, context);
    const request = admitted.get(event);
    admitted.delete(event);
    const base: Record<string, string> = {};
    for (const [k, v] of Object.entries(checked.headers ?? {})) base[k] = String(v);
    const out = new StreamResponse(rt, raw, context, base, deadlineMarginMs);
    try {
      if (!request) {
        await out.reply(checked.statusCode ?? 500, base, checked.body ?? '');
        return;
      }
      // An error escaping `run` by any path ends this stream only (lib/http/guard.ts).
      await guarded(() => run(request.input, request.ctx, out));
    } catch (err) {
      if (!out.started) await out.replyError(err, requestId);
      else log.error('stream failed after its first byte', { err, path: event.rawPath, requestId });
    } finally {
      await out.end();
    }
  };

  return rt.streamifyResponse(handle);
}
