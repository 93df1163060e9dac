// A child process for the guard test: handlers built with the real HTTP stack whose
// work fails outside their own promise chain, called one after another. Prints one
// JSON line per call; the process must still be alive to print the last one.
import { EventEmitter } from 'node:events';
import { http } from '../../../lib/http';
import { buildEvent } from '../http';

const context = { awsRequestId: 'guard-test' } as never;

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

for (const [name, handler] of [['emitter', emitterError], ['rejection', floatingRejection], ['healthy', healthy]] as const) {
  const result = await handler(buildEvent({ method: 'GET', path: '/api/v1/test' }), context);
  process.stdout.write(`${JSON.stringify({ name, status: result.statusCode, body: result.body })}\n`);
}
