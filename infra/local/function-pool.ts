// The local stack's one runner: the warm instances of every function it invokes, for the HTTP API
// (infra/local/http-api.ts), the WebSocket API (infra/local/websocket-api.ts), the Lambda invoke
// endpoint the queue adapter and tests use (infra/local/lambda-api.ts) and the schedules
// (infra/local/schedule.ts), all served by infra/local/stream-front.ts. Only the functions that
// stream their response run elsewhere (infra/local/stream-worker.ts). Each instance is a worker
// thread with the function's own environment and bundle (infra/local/function-worker.mjs), running
// one invocation at a time with its own module state, as a Lambda instance does: the handler is
// the bundle AWS runs, called as the runtime calls it.
//
// Each function keeps at most `limit` instances (LOCAL_FUNCTION_INSTANCES, 3 unless set); an
// invocation that finds them all busy waits for the first free one (in AWS, a function with that
// reserved concurrency would throttle it, which a client cannot tell apart in a test but would
// see as a 429 it never meets in production). serverless offline starts a new instance for
// every invocation that finds none idle, without limit: a post's queue workers and ten
// concurrent requests started dozens of cold workers at once on a 2-core machine. An instance gets its
// invocations over its one message port: serverless offline's runner opened a message
// channel per invocation and logged two lines for each, which made its main thread the
// busiest thread of the stack under load (bench/profile.ts, README "Speed").
//
// At its time limit (counted from the handler's call: loading the bundle is the init
// phase) an invocation fails and its instance is stopped, as Lambda stops the sandbox; an
// instance that dies fails its invocation; a rebuilt bundle retires every instance (the busy
// ones once they are done).
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { LocalFunction, Say } from './local-functions';

/** What an instance is sent (infra/local/function-worker.mjs), and what it answers. */
type ToInstance = { t: 'call'; id: string; event: unknown; timeoutMs: number };
type FromInstance = { t: 'begin'; id: string } | { t: 'result'; id: string; result: unknown } | { t: 'failed'; id: string; error: string };

type Pending = { resolve: (result: unknown) => void; reject: (err: Error) => void };

class Instance {
  readonly worker: Worker;
  /** The invocation under way, if any. */
  current: { id: string; pending: Pending; timer?: NodeJS.Timeout } | undefined;
  retired = false;
  gone = false;
  /** When it last finished an invocation (or started). */
  idleSince = Date.now();

  constructor(
    private readonly fn: LocalFunction,
    private readonly onFree: (instance: Instance) => void,
    private readonly onGone: (instance: Instance) => void,
    private readonly say: Say,
  ) {
    this.worker = new Worker(new URL('./function-worker.mjs', import.meta.url), { env: fn.env, workerData: fn.setup });
    this.worker.on('message', (msg: FromInstance) => this.receive(msg));
    this.worker.on('error', (err) => {
      say('error', `${fn.key}: ${err.stack ?? err.message}`);
      this.end(new Error(`${fn.key}: the instance failed: ${err.message}`));
    });
    this.worker.on('exit', () => this.end(new Error(`${fn.key}: the instance exited`)));
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(event: unknown, pending: Pending): void {
    const id = randomUUID();
    this.current = { id, pending };
    this.worker.postMessage({ t: 'call', id, event, timeoutMs: this.fn.timeoutMs } satisfies ToInstance);
  }

  /** The handler was called: its time limit runs from now. */
  private begin(current: NonNullable<Instance['current']>) {
    const limit = `Task timed out after ${(this.fn.timeoutMs / 1000).toFixed(2)} seconds`;
    current.timer = setTimeout(() => {
      this.say('error', `${this.fn.key}: ${limit}`);
      this.end(new Error(`${this.fn.key}: ${limit}`));
    }, this.fn.timeoutMs);
  }

  /** No new invocations; the thread stops now if idle, else once its invocation is done. */
  retire(): void {
    this.retired = true;
    if (!this.busy) void this.worker.terminate();
  }

  private receive(msg: FromInstance) {
    const current = this.current;
    if (!current || msg.id !== current.id) return;
    if (msg.t === 'begin') return this.begin(current);
    clearTimeout(current.timer);
    this.current = undefined;
    this.idleSince = Date.now();
    if (msg.t === 'result') current.pending.resolve(msg.result);
    else current.pending.reject(new Error(msg.error));
    if (this.retired) void this.worker.terminate();
    else this.onFree(this);
  }

  /** The instance is gone (stopped, crashed or timed out): its invocation fails with it. */
  private end(err: Error) {
    if (this.gone) return;
    this.gone = true;
    const current = this.current;
    this.current = undefined;
    if (current) {
      clearTimeout(current.timer);
      current.pending.reject(err);
    }
    void this.worker.terminate();
    this.onGone(this);
  }
}

/** One function's instances and the invocations waiting for one. */
class FunctionInstances {
  private readonly instances = new Set<Instance>();
  private readonly waiting: { event: unknown; pending: Pending }[] = [];

  constructor(
    private readonly fn: LocalFunction,
    private readonly limit: number,
    private readonly say: Say,
  ) {}

  invoke(event: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, pending: { resolve, reject } });
      this.drain();
    });
  }

  retire(): void {
    for (const instance of this.instances) instance.retire();
    this.instances.clear();
  }

  async stop(): Promise<void> {
    const all = [...this.instances];
    this.instances.clear();
    await Promise.all(all.map((i) => i.worker.terminate()));
  }

  get size(): number {
    return this.instances.size;
  }

  /** Stops the instances idle since before `before`, as serverless offline (and Lambda, later) reclaims them. */
  reclaim(before: number): void {
    for (const instance of this.instances) {
      if (instance.busy || instance.idleSince >= before) continue;
      this.instances.delete(instance);
      instance.retire();
    }
  }

  /** Starts waiting invocations on idle instances, starting new ones up to the limit. */
  private drain() {
    while (this.waiting.length > 0) {
      let idle = [...this.instances].find((i) => !i.busy);
      if (!idle && this.instances.size < this.limit) {
        idle = new Instance(this.fn, () => this.drain(), (gone) => this.forget(gone), this.say);
        this.instances.add(idle);
      }
      if (!idle) return;
      const next = this.waiting.shift()!;
      idle.run(next.event, next.pending);
    }
  }

  private forget(instance: Instance) {
    this.instances.delete(instance);
    // A lost instance leaves room for another.
    setImmediate(() => this.drain());
  }
}

/**
 * How long an instance may stay idle before it is stopped. Lambda keeps an idle instance for
 * minutes; serverless offline stopped them after 60 s (terminateIdleLambdaTime), which made
 * a client that comes back every minute or two meet cold starts AWS would not give it. A run
 * of the e2e suites reaches most of the ~200 functions: kept forever, their instances would
 * hold gigabytes.
 */
export const IDLE_INSTANCE_MS = 120_000;

/** The instances of every function the HTTP API has invoked so far. */
export class FunctionPool {
  private readonly byKey = new Map<string, FunctionInstances>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limit: number,
    private readonly say: Say,
    private readonly idleMs = IDLE_INSTANCE_MS,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`at least one instance per function, not ${limit}`);
    this.sweeper = setInterval(() => this.reclaim(), Math.max(10, Math.min(10_000, idleMs / 4)));
    this.sweeper.unref();
  }

  /** Stops the instances idle for longer than the pool allows. */
  reclaim(): void {
    const before = Date.now() - this.idleMs;
    for (const instances of this.byKey.values()) instances.reclaim(before);
  }

  invoke(fn: LocalFunction, event: unknown): Promise<unknown> {
    let instances = this.byKey.get(fn.key);
    if (!instances) this.byKey.set(fn.key, (instances = new FunctionInstances(fn, this.limit, this.say)));
    return instances.invoke(event);
  }

  /** How many instances `key` has now (tests). */
  instancesOf(key: string): number {
    return this.byKey.get(key)?.size ?? 0;
  }

  /** The bundles were rebuilt: later invocations start fresh instances. */
  reload(): void {
    for (const instances of this.byKey.values()) instances.retire();
    this.byKey.clear();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.byKey.values()].map((i) => i.stop()));
    this.byKey.clear();
  }
}
