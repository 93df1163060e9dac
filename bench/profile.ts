// Where a request's time goes on the local stack, per main endpoint:
//   stack   what the client waited beyond the handler: the front server, serverless offline
//           (routing, the event, the hop to a worker thread, a cold start) and the loopback HTTP;
//   db      the handler waiting with a DynamoDB call on the wire (X-Db-Ms: dynalite's work and
//           the loopback hop, parallel calls counted once);
//   busy    the handler's thread running (X-Busy-Ms: our code and the transport's, parsing,
//           validation, rendering, serialising the calls; it overlaps `db` where the thread works
//           while calls are on the wire);
//   off-db  the handler's time with no DynamoDB call on the wire (handler − db: our code, S3, the
//           queue adapter, timers).
// Each endpoint is measured one request at a time, then with 10 at once. Medians per request.
// Usage: npm run bench:profile   (or BENCH_URL=... against a running stack; PROFILE_COUNT=100)
import { benchOnStack, percentile, printTable, seedWorld } from './lib';

const COUNT = Number(process.env.PROFILE_COUNT ?? 100);

type Split = { total: number; handler: number; db: number; busy: number; calls: number };

async function once(url: string, init: RequestInit): Promise<Split> {
  const started = performance.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  const total = performance.now() - started;
  if (res.status >= 500) throw new Error(`${url}: ${res.status}`);
  const num = (name: string) => Number(res.headers.get(name) ?? NaN);
  return { total, handler: num('x-handler-ms'), db: num('x-db-ms'), busy: num('x-busy-ms'), calls: num('x-db-calls') };
}

async function sample(concurrency: number, request: (i: number) => [string, RequestInit]): Promise<Split[]> {
  const out: Split[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < COUNT) {
        const i = next++;
        const [url, init] = request(i);
        out.push(await once(url, init));
      }
    }),
  );
  return out;
}

const median = (xs: number[]) => percentile(xs.filter((x) => !Number.isNaN(x)), 50);
const ms = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));

benchOnStack(async (baseUrl) => {
  const { reader, targets, as } = await seedWorld(baseUrl, 2 * COUNT + 20);
  const auth = { headers: { Authorization: `Bearer ${reader.token}` } };
  let favourite = 30;
  let posted = 0;
  const endpoints: [string, (i: number) => [string, RequestInit]][] = [
    ['GET /api/v1/timelines/public?limit=20', () => [`${baseUrl}/api/v1/timelines/public?limit=20`, {}]],
    ['GET /api/v1/timelines/home', () => [`${baseUrl}/api/v1/timelines/home`, auth]],
    ['GET /api/v1/accounts/verify_credentials', () => [`${baseUrl}/api/v1/accounts/verify_credentials`, auth]],
    ['GET /api/v1/instance', () => [`${baseUrl}/api/v1/instance`, {}]],
    ['GET /api/v1/notifications', () => [`${baseUrl}/api/v1/notifications`, auth]],
    [
      'POST /api/v1/statuses',
      () => [`${baseUrl}/api/v1/statuses`, { method: 'POST', headers: as(reader.token), body: JSON.stringify({ status: `Profiled post ${posted++} with ten words and one #loadbench tag` }) }],
    ],
    ['POST /api/v1/statuses/:id/favourite', () => [`${baseUrl}/api/v1/statuses/${targets[favourite++]}/favourite`, { method: 'POST', headers: as(reader.token) }]],
    ['GET /api/v1/nothing-here (no function)', () => [`${baseUrl}/api/v1/nothing-here`, {}]],
  ];
  for (const concurrency of [1, 10]) {
    const rows = [];
    for (const [name, request] of endpoints) {
      await sample(concurrency, request); // warm-up: as many warm workers as connections
      const splits = await sample(concurrency, request);
      const handler = median(splits.map((s) => s.handler));
      const db = median(splits.map((s) => s.db));
      const busy = median(splits.map((s) => s.busy));
      const total = median(splits.map((s) => s.total));
      rows.push({
        endpoint: name,
        'total ms': ms(total),
        'stack ms': ms(median(splits.map((s) => s.total - (Number.isNaN(s.handler) ? 0 : s.handler)))),
        'db ms': ms(db),
        'busy ms': ms(busy),
        'off-db ms': ms(median(splits.map((s) => s.handler - s.db))),
        'db calls': Number.isNaN(median(splits.map((s) => s.calls))) ? '-' : median(splits.map((s) => s.calls)),
        'handler ms': ms(handler),
      });
    }
    process.stdout.write(`\n${concurrency === 1 ? 'One request at a time' : `${concurrency} requests at once`} (${COUNT} requests per endpoint, medians):\n`);
    printTable(rows);
  }
});
