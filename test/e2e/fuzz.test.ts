// The bounded run of the generated bad-input suite (test/fuzz/): hostile requests to
// every route of the route table, over real HTTP, to the local stack as `npm start`
// runs it. `npm run fuzz -- --requests N --seed S` runs the same suite for longer.
import { connect } from 'node:net';
import { setUp, type Setup } from '../fuzz/fixtures';
import { loadRoutes } from '../fuzz/routes';
import { fuzz, statsTable } from '../fuzz/run';
import { useStack } from '../support/stack';

const REQUESTS = 1_500;
const SEED = 20_261_124;

// Thousands of requests from one address: the rate limits are scaled up, not off.
const stack = useStack({ env: { RATE_LIMIT_FACTOR: '1000' } });
let setup: Setup;

beforeAll(async () => {
  setup = await setUp(stack().baseUrl);
}, 180_000);

const routes = loadRoutes();

describe('the route table the suite reads', () => {
  it('lists every HTTP route, the catch-all and the server-sent-event streams, and no WebSocket route', () => {
    const keys = routes.map((r) => r.key);
    expect(keys).toContain('*');
    expect(keys).toContain('POST /api/v1/statuses');
    expect(keys).toContain('GET /api/v1/statuses/{id}');
    expect(keys).toContain('GET /api/v1/streaming/user');
    expect(routes.find((r) => r.key === 'GET /api/v1/streaming/user')?.stream).toBe(true);
    expect(keys.some((k) => k.includes('$connect') || k.includes('$default'))).toBe(false);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('hostile requests to every route', () => {
  // About 90 s on an idle machine; every route adds requests, and a loaded machine doubles the time.
  it('are each answered below 500, with a JSON error on every 4xx and nothing written for a refused one', async () => {
    const result = await fuzz({ baseUrl: stack().baseUrl, routes, fixtures: setup, requests: REQUESTS, seed: SEED });
    if (process.env.FUZZ_STATS) process.stdout.write(`${statsTable(result)}\n${result.requests} requests in ${result.ms} ms\n`);
    const report = [
      result.stackDown ? `the stack stopped answering after:\n  ${result.stackDown}` : '',
      ...result.failures.map((f) => f.report),
    ].filter(Boolean);
    // The counterexamples, readable, are the failure message.
    expect(report.join('\n\n')).toBe('');
    expect(result.perRoute.size).toBe(routes.length);
    expect(result.requests).toBeGreaterThanOrEqual(REQUESTS);
  }, 480_000);

  it('leave the stack serving: an authenticated request, a stream and the WebSocket port still answer', async () => {
    const me = await fetch(`${stack().baseUrl}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${setup.healthToken}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id?: string }).id).toBe(setup.ids.accountA);
    // Answered by a handler in serverless offline, behind the front server.
    expect(me.headers.get('x-db-calls')).not.toBeNull();

    const health = await fetch(`${stack().baseUrl}/api/v1/streaming/health`);
    expect(await health.text()).toBe('OK');

    const ws = new URL(stack().managementUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: ws.hostname, port: Number(ws.port) }, () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });

    // The front server's HTTP and WebSocket ports all answered: no process of the
    // stack died, and nothing in it reported an error that escaped.
    expect(stack().output()).not.toMatch(/uncaught exception|unhandled 'error' event|ERR_UNHANDLED_ERROR/i);
  });
});
