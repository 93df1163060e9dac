// The last line of defence: an error that escapes a handler anyway (thrown from
// an event emitter's callback or a promise nobody awaits, outside the handler's
// own try/catch) fails the request it belongs to, never the process.
//
// Node reports such errors through process-level events. The Lambda runtime
// registers its own listeners for them before it loads our code; they report
// the error and end the container. The guard stands in front of them: an error
// raised inside a guarded request (found through the async context it was
// raised in) settles that request only, with a 500; any other error (raised
// outside any request, or after its request was answered) is the runtime's to
// handle as it always does, so that a container in an unknown state stops
// serving. Where no runtime listened (the local stack, tests), such an error is
// logged.
import { AsyncLocalStorage } from 'node:async_hooks';
import { log } from '../log';

type Scope = { fail: (err: unknown) => boolean };
type CrashEvent = 'uncaughtException' | 'unhandledRejection';
type Listener = (...args: unknown[]) => void;

const requests = new AsyncLocalStorage<Scope>();

/** The listeners that were there before the guard (the Lambda runtime's): they still handle what no request owns. */
const before: Record<CrashEvent, Listener[]> = { uncaughtException: [], unhandledRejection: [] };

function escapeListener(event: CrashEvent): Listener {
  return (err: unknown, ...rest: unknown[]) => {
    if (requests.getStore()?.fail(err)) return;
    if (before[event].length === 0) {
      log.error('error escaped outside any open request', { err });
      return;
    }
    for (const listener of before[event]) listener(err, ...rest);
  };
}
const listeners: Record<CrashEvent, Listener> = { uncaughtException: escapeListener('uncaughtException'), unhandledRejection: escapeListener('unhandledRejection') };

/**
 * Puts the guard in front of the listeners already there (the runtime's, kept and called by it for any error no
 * request owns). Checked on every request, since a host may reset the listeners (test runners do).
 */
function install(): void {
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    const current = (process as unknown as NodeJS.EventEmitter).listeners(event) as Listener[];
    if (current.includes(listeners[event])) continue;
    before[event] = current;
    const emitter = process as unknown as NodeJS.EventEmitter;
    for (const listener of current) emitter.removeListener(event, listener);
    emitter.on(event, listeners[event]);
  }
}

/** Runs `fn` so that an error escaping it by any path rejects the returned promise instead of the process. */
export function guarded<T>(fn: () => Promise<T>): Promise<T> {
  install();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
    };
    const scope: Scope = {
      fail: (err) => {
        if (settled) return false;
        settle(() => reject(err));
        return true;
      },
    };
    requests.run(scope, () => {
      fn().then(
        (value) => settle(() => resolve(value)),
        (err) => settle(() => reject(err)),
      );
    });
  });
}
