// The Lambda Invoke API of the local stack (`POST /2015-03-31/functions/{FunctionName}/invocations`), as the AWS
// SDK's LambdaClient calls it: the queue adapter (lib/queue, QUEUE_MODE=lambda) and the tests (test/support/sweep.ts)
// invoke functions through it, and every invocation runs on the stack's one runner (`invoke`,
// infra/local/function-pool.ts).
//
// What it reproduces of Lambda: a function found by name or ARN (404 ResourceNotFoundException otherwise), with
// the `$LATEST` qualifier only; the three invocation types (RequestResponse: 200 with the result or an Unhandled
// function error; Event: 202 at once, run in the background; DryRun: 204, nothing run); the payload limits
// (6 MB synchronous, 1 MB asynchronous: 413 RequestTooLargeException); a payload that is not JSON refused
// (400 InvalidRequestContentException); a result over 6 MB failing as Function.ResponseSizeTooLarge.
//
// What it adds for the stack's queues, which have no SQS emulator: an Event invocation whose SQS event carries the
// queue adapter's DelaySeconds attribute is answered 202 at once and run only when its delay is up, as SQS holds a
// delayed message. Without it a delivery retried "in a minute" came back within milliseconds and spent its
// attempts while the other server was still not ready, where SQS would have waited (a green test, a lost activity
// in AWS). Held invocations live in this process: they end with the stack (close), never run late.
//
// Not reproduced: X-Amz-Log-Type: Tail (no log tail is captured), X-Amz-Client-Context (the runner takes an event
// only), aliases and versions other than $LATEST, and Lambda's retries of a failed Event invocation (see runEvent).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LAMBDA_REQUEST_PAYLOAD_BYTES, LAMBDA_RESPONSE_PAYLOAD_BYTES } from '../../lib/http/limits';
import { readBoundedBody } from './bounded-body';
import type { Invoke, LocalFunction, Say } from './local-functions';

/** The attribute the queue adapter puts on each record of a delayed message (lib/queue/index.ts sqsEvent). */
export const DELAY_ATTRIBUTE = 'DelaySeconds';
/** SQS's longest delay; a record asking more is held this long. */
const MAX_DELAY_S = 900;

/**
 * Lambda's limit on an asynchronous (Event) invocation's payload: 1 MB since 2025 (256 KB before). Nothing in lib
 * defines it (lib/http/limits.ts has the synchronous ones); the queue adapter's messages stay far below either.
 */
export const LAMBDA_EVENT_PAYLOAD_BYTES = 1_048_576;


const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
const INVOCATION_TYPES = ['RequestResponse', 'Event', 'DryRun'] as const;
type InvocationType = (typeof INVOCATION_TYPES)[number];

export type LambdaApi = {
  /** Answers one request of the invoke port. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Delayed invocations not yet run. */
  held(): number;
  /** Drops the held invocations: they end with the stack, never run late. */
  close(): void;
};

/** The delay an invocation's payload asks for, in seconds (0: none, or not an SQS event of ours). */
export function requestedDelay(payload: Buffer): number {
  if (payload.length === 0 || payload[0] !== 0x7b) return 0;
  try {
    return delayOf(JSON.parse(payload.toString('utf8')));
  } catch {
    return 0;
  }
}

function delayOf(event: unknown): number {
  const records = (event as { Records?: unknown } | null)?.Records;
  if (!Array.isArray(records)) return 0;
  const first = records[0] as { messageAttributes?: Record<string, { stringValue?: unknown } | undefined> } | undefined;
  const value = Number(first?.messageAttributes?.[DELAY_ATTRIBUTE]?.stringValue);
  return Number.isFinite(value) && value > 0 ? Math.min(value, MAX_DELAY_S) : 0;
}

/** Lambda's answer to a request it refuses: the error type in x-amzn-ErrorType and the JSON body its SDK reads. */
function refuse(res: ServerResponse, status: number, type: string, message: string): void {
  // `Message`, as Lambda spells it (the SDK's modeled member; it reads `message` as well).
  send(res, status, { 'x-amzn-ErrorType': type, 'content-type': 'application/json' }, JSON.stringify({ Type: 'User', Message: message }));
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body = ''): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'x-amzn-RequestId': randomUUID(), 'content-length': String(Buffer.byteLength(body)) }).end(body);
}

/**
 * The payload of a failed invocation as Lambda's Node.js runtime writes it. The runner rejects with the handler's
 * error stack as the message (infra/local/function-worker.mjs), so the error's name and message are read back from
 * its first lines: `TypeError: boom` gives errorType TypeError, errorMessage boom, as Lambda would.
 */
export function functionError(err: unknown): { errorType: string; errorMessage: string; trace: string[] } {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.split('\n');
  const traceAt = lines.findIndex((line, i) => i > 0 && /^\s+at /.test(line));
  const head = (traceAt === -1 ? lines.slice(0, 1) : lines.slice(0, traceAt)).join('\n');
  const named = /^([A-Za-z_$][\w$]*(?:Error|Exception)): ([\s\S]*)$/.exec(head);
  if (named) return { errorType: named[1]!, errorMessage: named[2]!, trace: lines };
  // The runner's own failures (infra/local/function-pool.ts): Lambda reports a timeout as Sandbox.Timedout.
  if (/Task timed out after/.test(head)) return { errorType: 'Sandbox.Timedout', errorMessage: head, trace: [] };
  return { errorType: 'Error', errorMessage: head, trace: lines };
}

export function lambdaApi(opts: { find: (name: string) => LocalFunction | undefined; invoke: Invoke; say: Say }): LambdaApi {
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  /** Settles with the invocation's result; never throws, even should `invoke` throw rather than reject. */
  const run = (fn: LocalFunction, event: unknown): Promise<unknown> => Promise.resolve().then(() => opts.invoke(fn, event));

  /**
   * An Event invocation, in the background. A failure is logged, not retried: Lambda would retry a failed
   * asynchronous invocation twice (1 and 2 minutes later), but on this stack every Event invocation stands in for
   * an SQS event source mapping (lib/queue, lambda mode), which in AWS invokes its worker synchronously and owns
   * redelivery itself; the workers report failed messages in batchItemFailures, not by failing, and the adapter's
   * retries (deliveries that back off) are delayed messages of their own. Lambda's retries would replay whole
   * batches minutes after a test has moved on, which neither AWS nor serverless offline ever did to these workers.
   */
  const runEvent = (fn: LocalFunction, event: unknown): void => {
    run(fn, event).catch((err: unknown) => {
      const { errorType, errorMessage } = functionError(err);
      opts.say('error', `${fn.key}: an Event invocation failed (not retried): ${errorType}: ${errorMessage}`);
    });
  };

  const answerResult = (res: ServerResponse, result: unknown): void => {
    let body: string;
    try {
      // JSON of the result as Lambda's runtime writes it; undefined (no return value) is `null`.
      body = JSON.stringify(result) ?? 'null';
    } catch (err) {
      return answerFailure(res, err instanceof Error ? new Error(err.stack ?? err.message) : err);
    }
    const size = Buffer.byteLength(body);
    if (size > LAMBDA_RESPONSE_PAYLOAD_BYTES) {
      const failure = {
        errorType: 'Function.ResponseSizeTooLarge',
        errorMessage: `Response payload size (${size} bytes) exceeded maximum allowed payload size (${LAMBDA_RESPONSE_PAYLOAD_BYTES} bytes).`,
      };
      return send(res, 200, { 'X-Amz-Executed-Version': '$LATEST', 'X-Amz-Function-Error': 'Unhandled', 'content-type': 'application/json' }, JSON.stringify(failure));
    }
    send(res, 200, { 'X-Amz-Executed-Version': '$LATEST', 'content-type': 'application/json' }, body);
  };

  /** A function error is no API error: Lambda answers 200 and says so in X-Amz-Function-Error. */
  const answerFailure = (res: ServerResponse, err: unknown): void => {
    send(res, 200, { 'X-Amz-Executed-Version': '$LATEST', 'X-Amz-Function-Error': 'Unhandled', 'content-type': 'application/json' }, JSON.stringify(functionError(err)));
  };

  /** `size`: the body's length, of which `payload` holds all when it is within the limit. */
  const answer = (res: ServerResponse, type: InvocationType, name: string, qualifier: string | null, payload: Buffer, size: number): void => {
    const limit = type === 'Event' ? LAMBDA_EVENT_PAYLOAD_BYTES : LAMBDA_REQUEST_PAYLOAD_BYTES;
    if (size > limit) {
      const operation = type === 'Event' ? 'InvokeAsync' : 'InvokeFunction';
      return refuse(res, 413, 'RequestTooLargeException', `Request must be smaller than ${limit} bytes for the ${operation} operation`);
    }
    const fn = qualifier === null || qualifier === '$LATEST' ? opts.find(name) : undefined;
    if (!fn) return refuse(res, 404, 'ResourceNotFoundException', `Function not found: ${qualifier === null ? name : `${name}:${qualifier}`}`);
    let event: unknown = {};
    if (payload.length > 0) {
      try {
        event = JSON.parse(payload.toString('utf8'));
      } catch (err) {
        return refuse(res, 400, 'InvalidRequestContentException', `Could not parse request body into json: ${(err as Error).message}`);
      }
    }
    if (type === 'DryRun') return send(res, 204, {});
    if (type === 'Event') {
      send(res, 202, {});
      const delay = delayOf(event);
      if (delay === 0) return runEvent(fn, event);
      // Once the stack stops, a delayed message is dropped with those already held.
      if (closed) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        runEvent(fn, event);
      }, delay * 1000);
      timer.unref();
      timers.add(timer);
      return;
    }
    run(fn, event)
      .then(
        (result) => answerResult(res, result),
        (err: unknown) => answerFailure(res, err),
      )
      .catch((err: unknown) => {
        opts.say('error', `${fn.key}: the answer to an invocation could not be written: ${String(err)}`);
        res.destroy();
      });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // A socket that fails or closes under us is nothing to answer.
    res.on('error', () => undefined);
    req.on('error', () => res.destroy());
    // Split by hand: `new URL` throws on a request line such as `//`.
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1));
    const route = INVOKE_PATH.exec(pathname);
    if (req.method !== 'POST' || !route) {
      req.resume();
      return refuse(res, 404, 'UnknownOperationException', `Unknown operation: ${req.method ?? ''} ${pathname}`);
    }
    let name: string;
    try {
      name = decodeURIComponent(route[1]!);
    } catch {
      name = route[1]!;
    }
    const typeHeader = req.headers['x-amz-invocation-type'];
    const type = (typeof typeHeader === 'string' && typeHeader !== '' ? typeHeader : 'RequestResponse') as InvocationType;
    const valid = INVOCATION_TYPES.includes(type);
    // The whole body is read before any answer, so that a client still sending it reads the answer, not a reset.
    const limit = valid && type === 'Event' ? LAMBDA_EVENT_PAYLOAD_BYTES : LAMBDA_REQUEST_PAYLOAD_BYTES;
    const tooLarge = () => refuse(res, 413, 'RequestTooLargeException', `Request must be smaller than ${limit} bytes for the InvokeFunction operation`);
    readBoundedBody(req, res, limit, tooLarge, (body, size) => {
      try {
        if (!valid) {
          return refuse(res, 400, 'InvalidParameterValueException', `Invalid invocation type: ${String(typeHeader)}. Member must satisfy enum value set: [${INVOCATION_TYPES.join(', ')}]`);
        }
        answer(res, type, name, query.get('Qualifier'), body ?? Buffer.alloc(0), size);
      } catch (err) {
        opts.say('error', `the Lambda invoke API failed on ${pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        send(res, 500, { 'x-amzn-ErrorType': 'ServiceException', 'content-type': 'application/json' }, JSON.stringify({ Type: 'Service', Message: 'the local invoke API failed' }));
      }
    });
  };

  return {
    handle,
    held: () => timers.size,
    close: () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
