// The handlers of the guard test's child processes: built with the real HTTP stack, two whose work fails outside
// their own promise chain, and a healthy one. `runAll` calls each once and prints one JSON line per call.
import { EventEmitter } from 'node:events';
import { http } from '../../../lib/http';
import { buildEvent } from '../http';

const emitterError = http(async () => {
  const emitter = new EventEmitter();
  // Nobody listens for 'error': Node throws it from the timer, outside run's promise.
  setTimeout(() => emitter.emit('error', new Error('stream failed')), 5);
  await new Promise(() => {});
}, { auth: 'public' });

const floatingRejection = http(async () => {
  void Promise.reject(new Error('nobody awaited this'));
  await new Promise(() => {});
}, { auth: 'public' });

const healthy = http(async () => ({ ok: true }), { auth: 'public' });

/** Calls each handler in turn; prints `{ name, status }` (and the body with `withBody`) per call. */
export async function runAll(opts: { withBody: boolean }): Promise<void> {
  const context = { awsRequestId: 'guard-test' } as never;
  for (const [name, handler] of [['emitter', emitterError], ['rejection', floatingRejection], ['healthy', healthy]] as const) {
    const result = await handler(buildEvent({ method: 'GET', path: '/api/v1/test' }), context);
    process.stdout.write(`${JSON.stringify(opts.withBody ? { name, status: result.statusCode, body: result.body } : { name, status: result.statusCode })}\n`);
  }
}
