// `npm run fuzz -- --requests N --seed S [--concurrency C] [--route TEXT]`: a longer
// run of the bad-input suite than `npm test`'s, on a local stack of its own, with
// per-route counts of requests and statuses. Exits 1 if any answer broke the property.
import { parseArgs } from 'node:util';
import { startStack } from '../support/stack';
import { setUp } from './fixtures';
import { loadRoutes } from './routes';
import { fuzz, statsTable } from './run';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    concurrency: { type: 'string', default: '4' },
    route: { type: 'string' },
  },
});

const out = (line: string) => process.stdout.write(`${line}\n`);

const routes = loadRoutes().filter((r) => values.route === undefined || r.key.includes(values.route));
if (routes.length === 0) {
  out(`no route matches ${values.route}`);
  process.exit(2);
}
const seed = Number(values.seed);
out(`fuzzing ${routes.length} routes with ${values.requests} requests, seed ${seed}`);
const stack = await startStack({ env: { RATE_LIMIT_FACTOR: '1000' } });
let failed = false;
try {
  const fixtures = await setUp(stack.baseUrl);
  const result = await fuzz({ baseUrl: stack.baseUrl, routes, fixtures, requests: Number(values.requests), seed, concurrency: Number(values.concurrency) });
  out(statsTable(result));
  out(`\n${result.requests} requests to ${result.routes} routes in ${(result.ms / 1000).toFixed(1)} s`);
  if (result.stackDown) out(`\nTHE STACK STOPPED ANSWERING after:\n  ${result.stackDown}`);
  for (const failure of result.failures) out(`\n${failure.report}`);
  failed = result.failures.length > 0;
  if (!failed) out('every answer had a status below 500, a JSON error on every 4xx, and no writes on refusal');
} finally {
  await stack.stop();
}
process.exit(failed ? 1 : 0);
