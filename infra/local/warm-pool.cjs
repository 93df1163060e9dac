// Warm instances on the local stack. serverless offline 13 starts a new instance (a worker
// thread that loads the function's bundle: a cold start) for every invocation that finds
// no idle one, without limit. Ten concurrent requests to each of a few functions, plus the
// queue workers a post sets off, made it start dozens of cold workers at once on a 2-core
// machine: requests waited seconds on cold starts and on each other's garbage collection,
// and the stack grew past 5 GB (bench/profile.ts, bench/load.ts; the README's "Speed").
//
// Here each function keeps at most `limit` instances (LOCAL_FUNCTION_INSTANCES, 3 unless
// set); an invocation that finds them all busy waits for the first to be free, then runs
// there, warm, as an invocation does in AWS on a function with that reserved concurrency
// (where it would be throttled instead: the local stack queues it, since a client cannot
// tell the difference in a test but would see a 429 it never sees in production). Each
// instance still runs one invocation at a time, with its own module state, as a Lambda
// container does: handlers run exactly as in AWS.
'use strict';

const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

/** Patches serverless offline's instance pool (once per process). */
async function limitInstances(limit) {
  const src = dirname(require.resolve('serverless-offline'));
  const { default: Pool } = await import(pathToFileURL(join(src, 'lambda', 'LambdaFunctionPool.js')).href);
  if (Pool.prototype.tootlessWarmPool) return;
  const originalGet = Pool.prototype.get;
  /** Per pool and function: the instances we know of, and the invocations waiting for one. */
  const states = new WeakMap();
  const stateOf = (pool, key) => {
    let byKey = states.get(pool);
    if (!byKey) states.set(pool, (byKey = new Map()));
    let state = byKey.get(key);
    if (!state) byKey.set(key, (state = { instances: new Set(), waiting: [] }));
    return state;
  };

  /** Starts the first waiting invocation on an idle instance, if both exist. */
  const drain = (state) => {
    while (state.waiting.length > 0) {
      const idle = [...state.instances].find((f) => f.status === 'IDLE');
      if (!idle) return;
      const next = state.waiting.shift();
      next(idle);
    }
  };

  /** Follows an instance: when an invocation ends, the next waiting one takes it; when the pool cleans it up, it is gone. */
  const track = (state, instance) => {
    if (state.instances.has(instance)) return instance;
    state.instances.add(instance);
    const run = instance.runHandler.bind(instance);
    instance.runHandler = function runHandler() {
      const running = run();
      const next = () => setImmediate(() => drain(state));
      running.then(next, next);
      return running;
    };
    const cleanup = instance.cleanup.bind(instance);
    instance.cleanup = function cleanupTracked() {
      state.instances.delete(instance);
      return cleanup();
    };
    return instance;
  };

  Pool.prototype.get = function get(key, definition) {
    const state = stateOf(this, key);
    const idle = [...state.instances].some((f) => f.status === 'IDLE');
    // Those already waiting go first.
    if (state.waiting.length === 0 && (idle || state.instances.size < limit)) return track(state, originalGet.call(this, key, definition));
    // All busy and no room for another: an invocation that waits for the first free one. Callers
    // use an instance as get() → setClientContext() → setEvent() → runHandler().
    let event;
    let clientContext;
    return {
      setEvent(e) {
        event = e;
      },
      setClientContext(c) {
        clientContext = c;
      },
      get status() {
        return 'BUSY';
      },
      runHandler() {
        return new Promise((resolve, reject) => {
          state.waiting.push((instance) => {
            if (clientContext !== undefined) instance.setClientContext(clientContext);
            instance.setEvent(event);
            instance.runHandler().then(resolve, reject);
          });
          drain(state);
        });
      },
    };
  };
  Pool.prototype.tootlessWarmPool = true;
}

module.exports = { limitInstances };
