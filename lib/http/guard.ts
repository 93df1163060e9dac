// The last line of defence: an error that escapes a handler anyway (thrown from
// an event emitter's callback or a promise nobody awaits, outside the handler's
// own try/catch) fails the request it belongs to, never the process.
//
// Node reports such errors through process-level events. The Lambda runtime
// registers its own listeners for them before it loads our code; they report
// the error and exit, which would end the container and every request in it
// (and, in serverless offline, the whole local stack). The guard takes those
// events over: an error raised inside a guarded request (found through the
// async context it was raised in) settles that request only; one raised outside
// any request, or after its request was answered, is logged.
import { AsyncLocalStorage } from 'node:async_hooks';
import { log } from '../log';

type Scope = { fail: (err: unknown) => boolean };

const requests = new AsyncLocalStorage<Scope>();

function onEscape(err: unknown): void {
  if (requests.getStore()?.fail(err)) return;
  log.error('error escaped outside any open request', { err });
}

/**
 * Listens to both events; in the Lambda runtime, instead of its listeners. Checked
 * on every request, since a host may reset the listeners (test runners do).
 */
function install(): void {
  const inLambdaRuntime = Boolean(process.env.AWS_LAMBDA_RUNTIME_API);
  if (!process.listeners('uncaughtException').includes(onEscape)) {
    if (inLambdaRuntime) process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onEscape);
  }
  if (!process.listeners('unhandledRejection').includes(onEscape)) {
    if (inLambdaRuntime) process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onEscape);
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
