// What every AWS call is counted by (the benches and tests read it): DynamoDB calls per request and the writes among
// them, the time a request had a call on the wire, capacity units, S3 requests by price class, queue messages; and
// the middleware every SDK client carries for it (./index.ts and the per-service modules beside it).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareStack } from '@smithy/types';

/** An AWS error as the SDK throws it: named after the error type, with its `$metadata`. */
export type AwsError = Error & { $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number }; $fault?: 'client' | 'server'; [field: string]: unknown };

/** DynamoDB calls made since the last reset, process-wide (benchmarks of in-process work). */
export const dbCalls = { count: 0, reset() { this.count = 0; } };

/**
 * DynamoDB calls of one request, and the writes among them that took effect.
 * Counted per async context, so requests handled concurrently in one process
 * (the local stack's worker threads, tests) each see their own. `waitMs` is the
 * time the request had at least one call on the wire (sent and not yet answered):
 * calls in parallel count once, so it is what the request spent waiting on the table.
 */
export type DbMeter = {
  calls: number;
  writes: number;
  waitMs?: number;
  inFlight?: number;
  since?: number;
  /** Capacity units DynamoDB reports (ReturnConsumedCapacity), counted only with EXPOSE_METRICS: bench/cost.ts prices them. */
  readUnits?: number;
  writeUnits?: number;
  /** S3 requests by price class (PUT/COPY/POST/LIST against GET and the rest), and queue messages sent. */
  s3Writes?: number;
  s3Reads?: number;
  messages?: number;
};
export const meters = new AsyncLocalStorage<{ meter: DbMeter; countWrites: boolean }>();

/** Opens or closes a period with a call on the wire (bench/profile.ts reads the total through X-Db-Ms). */
export function onWire(meter: DbMeter, delta: 1 | -1): void {
  const now = performance.now();
  const before = meter.inFlight ?? 0;
  meter.inFlight = before + delta;
  if (before === 0 && delta === 1) meter.since = now;
  if (meter.inFlight === 0 && delta === -1) meter.waitMs = (meter.waitMs ?? 0) + (now - (meter.since ?? now));
}

/** Runs `fn` with its DynamoDB calls counted on `meter`. */
export const meterDb = <T>(meter: DbMeter, fn: () => T): T => meters.run({ meter, countWrites: true }, fn);

/**
 * Runs `fn` without counting its writes: bookkeeping a refused request makes on
 * purpose (rate-limit counters), which the "a refused request writes nothing"
 * check of the bad-input suite must not see.
 */
export function uncountedWrites<T>(fn: () => T): T {
  const scope = meters.getStore();
  return scope ? meters.run({ meter: scope.meter, countWrites: false }, fn) : fn();
}

/** Counts one queue message sent under the current meter (lib/queue). */
export function countMessage(): void {
  const meter = meters.getStore()?.meter;
  if (meter) meter.messages = (meter.messages ?? 0) + 1;
}

/** Sees each request as the SDK builds it, once per call (retries not included); may answer a function called once it is done. Tests. */
export type AwsRequest = { service: string; headers: Record<string, string>; body: unknown };
export type RequestObserver = (req: AwsRequest) => (() => void) | void;
const requestObservers = new Set<RequestObserver>();

/** Calls `observer` with every request sent until the answer is called. */
export function observeRequests(observer: RequestObserver): () => void {
  requestObservers.add(observer);
  return () => requestObservers.delete(observer);
}

/** The middleware every client carries: the request observers (tests), and each attempt timed on the wire (the meter). */
export function instrument(stack: MiddlewareStack<any, any>, service: string): void {
  stack.add(
    (next) => async (args) => {
      if (requestObservers.size === 0) return next(args);
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      const done = [...requestObservers].map((observe) => observe({ service, headers: request.headers ?? {}, body: request.body }));
      try {
        return await next(args);
      } finally {
        for (const finish of done) finish?.();
      }
    },
    { step: 'build', name: 'tootlessObserve', override: true },
  );
  stack.add(
    (next) => async (args) => {
      const meter = meters.getStore()?.meter;
      if (!meter) return next(args);
      onWire(meter, 1);
      try {
        return await next(args);
      } finally {
        onWire(meter, -1);
      }
    },
    { step: 'deserialize', name: 'tootlessOnWire', override: true },
  );
}

/** Is `err` the AWS error `name` (what `instanceof ConditionalCheckFailedException` asked of the SDK's errors)? */
export const isAwsError = (err: unknown, name: string): boolean => err instanceof Error && err.name === name;
