// Black-box load on the local stack: autocannon drives each main endpoint with 10
// connections, the endpoints interleaved round after round so that a slow minute of
// the machine falls on all of them alike. Prints req/s, p50, p99 and errors per endpoint.
// Usage: npm run bench:load                       (starts its own local stack)
//        BENCH_URL=http://localhost:3000 npm run bench:load   (against a running one)
//        LOAD_SECONDS=10 LOAD_ROUNDS=3 LOAD_CONNECTIONS=10 LOAD_ONLY=home,post LOAD_TRACE=/tmp/trace.txt
import { writeFileSync } from 'node:fs';
import autocannon, { type Options, type Request } from 'autocannon';
import { benchOnStack, percentile, printTable, seedWorld } from './lib';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 10);
const ONLY = process.env.LOAD_ONLY?.split(',');
/** Seconds of rest after each run: the queue work a run set off (a post's fan-out) finishes before the next endpoint is measured. */
const PAUSE = Number(process.env.LOAD_PAUSE ?? 5);
/**
 * Seconds of unmeasured load on each endpoint before the rounds: the local stack starts a function's
 * instances as concurrency first asks for them (up to LOCAL_FUNCTION_INSTANCES), and those cold starts
 * (bench/cold-start.ts measures them) would otherwise be the first round's slowest responses. 0 to measure them.
 */
const WARMUP = Number(process.env.LOAD_WARMUP ?? 2);

type Endpoint = { key: string; name: string; requests: (conn: () => number) => Request[] };

type Tally = { started: number[]; latencies: number[]; requests: number; seconds: number; errors: number; statuses: Map<number, number> };

async function run(baseUrl: string, endpoint: Endpoint, seconds = SECONDS): Promise<Omit<Tally, 'statuses'> & { statuses: Map<number, number> }> {
  const tally: Tally = { started: [], latencies: [], requests: 0, seconds: 0, errors: 0, statuses: new Map() };
  // Each connection numbers itself on its first request, so that per-connection work (the
  // statuses it favourites) never overlaps another's.
  let connections = 0;
  const options: Options = {
    url: baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests: endpoint.requests(() => connections++),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err, done) => (err ? reject(err) : resolve(done)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      tally.started.push(Date.now() - responseTime);
      tally.latencies.push(responseTime);
      tally.statuses.set(statusCode, (tally.statuses.get(statusCode) ?? 0) + 1);
    });
  });
  tally.requests = result.requests.total;
  tally.seconds = result.duration;
  tally.errors = result.errors + result.timeouts + result.non2xx;
  return tally;
}

benchOnStack(async (baseUrl) => {
  const { reader, targets, as } = await seedWorld(baseUrl, 10 * CONNECTIONS);
  const reading = { Authorization: `Bearer ${reader.token}` };
  const get = (path: string, headers: Record<string, string> = reading) => () => [{ method: 'GET' as const, path, headers }];
  let posted = 0;
  const all: Endpoint[] = [
    { key: 'public', name: 'GET /api/v1/timelines/public?limit=20', requests: get('/api/v1/timelines/public?limit=20', {}) },
    { key: 'home', name: 'GET /api/v1/timelines/home', requests: get('/api/v1/timelines/home') },
    { key: 'verify', name: 'GET /api/v1/accounts/verify_credentials', requests: get('/api/v1/accounts/verify_credentials') },
    {
      key: 'post',
      name: 'POST /api/v1/statuses',
      requests: () => [
        {
          method: 'POST',
          path: '/api/v1/statuses',
          headers: as(reader.token),
          setupRequest: (req: Request) => ({
            ...req,
            body: JSON.stringify({ status: `Load test post ${posted++} with ten words and one #loadbench tag` }),
          }),
        },
      ],
    },
    { key: 'instance', name: 'GET /api/v1/instance', requests: get('/api/v1/instance', {}) },
    { key: 'notifications', name: 'GET /api/v1/notifications', requests: get('/api/v1/notifications') },
    {
      key: 'favourite',
      name: 'POST /api/v1/statuses/:id/favourite (and unfavourite)',
      // Each connection walks its own ten statuses, favouriting them, then unfavouriting them.
      requests: (conn) => [
        {
          method: 'POST',
          setupRequest: (req: Request, context: object) => {
            const c = context as { conn?: number; step?: number };
            c.conn ??= conn() % CONNECTIONS;
            const step = (c.step = (c.step ?? -1) + 1);
            const id = targets[30 + c.conn * 10 + (step % 10)];
            const verb = Math.floor(step / 10) % 2 === 0 ? 'favourite' : 'unfavourite';
            return { ...req, path: `/api/v1/statuses/${id}/${verb}`, headers: as(reader.token) };
          },
        },
      ],
    },
    { key: 'unknown', name: 'GET /api/v1/nothing-here (404, no DynamoDB call)', requests: get('/api/v1/nothing-here', {}) },
  ];
  const endpoints = all.filter((e) => !ONLY || ONLY.includes(e.key));

  if (WARMUP > 0) {
    for (const endpoint of endpoints) await run(baseUrl, endpoint, WARMUP);
    await new Promise((resolve) => setTimeout(resolve, PAUSE * 1000));
  }
  const tallies = new Map<string, Tally[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const endpoint of endpoints) {
      const tally = await run(baseUrl, endpoint);
      tallies.set(endpoint.key, [...(tallies.get(endpoint.key) ?? []), tally]);
      process.stderr.write(`round ${round + 1} ${endpoint.key}: ${(tally.requests / tally.seconds).toFixed(0)} req/s\n`);
      await new Promise((resolve) => setTimeout(resolve, PAUSE * 1000));
    }
  }
  // LOAD_TRACE=file writes every response as "endpoint round start-ms latency-ms", to see when the slow ones came.
  if (process.env.LOAD_TRACE) {
    const lines = [...tallies].flatMap(([key, runs]) =>
      runs.flatMap((r, round) => r.latencies.map((ms, i) => `${key} ${round + 1} ${r.started[i]! - r.started[0]!} ${ms}`)),
    );
    writeFileSync(process.env.LOAD_TRACE, `${lines.join('\n')}\n`);
  }
  const rows = endpoints.map((e) => {
    const runs = tallies.get(e.key)!;
    const latencies = runs.flatMap((r) => r.latencies);
    const statuses = new Map<number, number>();
    for (const r of runs) for (const [s, n] of r.statuses) statuses.set(s, (statuses.get(s) ?? 0) + n);
    const expected = e.key === 'unknown' ? 404 : 200;
    const unexpected = [...statuses].filter(([s]) => s !== expected).map(([s, n]) => `${n}×${s}`);
    const errors = runs.reduce((n, r) => n + r.errors, 0) - (e.key === 'unknown' ? (statuses.get(404) ?? 0) : 0);
    return {
      endpoint: e.name,
      'req/s': Math.round(runs.reduce((n, r) => n + r.requests, 0) / runs.reduce((n, r) => n + r.seconds, 0)),
      'p50 ms': Math.round(percentile(latencies, 50)),
      'p99 ms': Math.round(percentile(latencies, 99)),
      errors: unexpected.length > 0 ? `${errors} (${unexpected.join(', ')})` : String(errors),
    };
  });
  process.stdout.write(
    `\nLoad: ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per endpoint after ${WARMUP} s of warm-up each\n`,
  );
  printTable(rows);
});
