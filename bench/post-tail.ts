// Posting under concurrency: per request, its latency and its DynamoDB calls (a conflict
// retried is one more call), so that posting's tail can be told apart: retries on a held
// item, or waiting for an instance or the CPU.
// Usage: npm run bench:post-tail   (or BENCH_URL=...; POST_COUNT=300 POST_CONCURRENCY=10)
import { benchOnStack, percentile, printTable, seedWorld } from './lib';

const COUNT = Number(process.env.POST_COUNT ?? 300);
const CONCURRENCY = Number(process.env.POST_CONCURRENCY ?? 10);

benchOnStack(async (baseUrl) => {
  const { reader, as } = await seedWorld(baseUrl, 10);
  const samples: { ms: number; calls: number; handler: number; db: number }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < COUNT) {
        const i = next++;
        const started = performance.now();
        const res = await fetch(`${baseUrl}/api/v1/statuses`, {
          method: 'POST',
          headers: as(reader.token),
          body: JSON.stringify({ status: `Tail post ${i} with ten words and one #loadbench tag` }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`post ${i}: ${res.status}`);
        const num = (name: string) => Number(res.headers.get(name) ?? NaN);
        samples.push({ ms: performance.now() - started, calls: num('x-db-calls'), handler: num('x-handler-ms'), db: num('x-db-ms') });
      }
    }),
  );
  const fewest = Math.min(...samples.map((s) => s.calls));
  const rows = [];
  for (const [name, part] of [
    ['all', samples],
    [`no retry (${fewest} calls)`, samples.filter((s) => s.calls === fewest)],
    ['retried', samples.filter((s) => s.calls > fewest)],
  ] as const) {
    if (part.length === 0) continue;
    rows.push({
      posts: name,
      count: part.length,
      'p50 ms': percentile(part.map((s) => s.ms), 50).toFixed(0),
      'p99 ms': percentile(part.map((s) => s.ms), 99).toFixed(0),
      'handler p50': percentile(part.map((s) => s.handler), 50).toFixed(0),
      'handler p99': percentile(part.map((s) => s.handler), 99).toFixed(0),
      'db p50': percentile(part.map((s) => s.db), 50).toFixed(0),
      'calls max': Math.max(...part.map((s) => s.calls)),
    });
  }
  process.stdout.write(`Posting: ${COUNT} posts by one account, ${CONCURRENCY} at a time\n`);
  printTable(rows);
});
