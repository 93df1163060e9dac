// Search latency: GET /api/v2/search's status search (lib/search searchStatuses:
// word-index Queries, batch reads of statuses and of the other words' index
// keys, visibility) over 10,000 statuses, against dynalite and s3rver started in
// this process (the same emulators as the local stack). Statuses are stored as
// posting stores them: the status item plus its search index items.
// Usage: npx tsx bench/search.ts   (SEARCH_STATUSES=10000, SEARCH_RUNS=100 by default)
import { randomBytes } from 'node:crypto';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, percentile, printTable } from './lib';

const STATUSES = Number(process.env.SEARCH_STATUSES ?? 10000);
const RUNS = Number(process.env.SEARCH_RUNS ?? 100);
const VOCABULARY = 2000;
const WORDS_PER_STATUS = 12;

/** A deterministic pseudo-random sequence, so every run searches the same corpus. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function main() {
  const emulators = await inProcessEmulators();
  process.env.TABLE_NAME = `search-${randomBytes(3).toString('hex')}`;
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  // Imported after the environment points at the emulators.
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { searchIndexRecords } = await import('../lib/db/search');
  const { searchableByAnyone } = await import('../lib/policy');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { searchStatuses } = await import('../lib/search');
  const rows: Record<string, string | number>[] = [];
  try {
    const created = await createLocalAccount({ id: newId(), username: 'searcher', email: 'searcher@example.com', passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
    if (!created.ok) throw new Error('bench: could not create the searcher');
    const viewer = created.account;
    const authors = [viewer.id, ...Array.from({ length: 49 }, () => newId())];
    const random = rng(42);
    // Zipf-like word frequencies: word k is used about 1/k as often as word 1.
    const word = () => `w${Math.floor(VOCABULARY ** random())}`;
    const started = Date.now();
    const base = Date.now() - STATUSES * 1000;
    for (let i = 0; i < STATUSES; i += 200) {
      const batch = [];
      for (let j = i; j < Math.min(i + 200, STATUSES); j++) {
        const id = newId(base + j * 1000);
        const accountId = authors[Math.floor(random() * authors.length)]!;
        const text = Array.from({ length: WORDS_PER_STATUS }, word).join(' ');
        const visibility = random() < 0.9 ? 'public' : 'private';
        const status = statusItem.parse({ id, accountId, createdAt: new Date(base + j * 1000).toISOString(), visibility, conversationId: id, text, contentHtml: `<p>${text}</p>` });
        batch.push(statusRecord(status), ...searchIndexRecords(status, searchableByAnyone(status)));
      }
      await batchWrite(batch);
    }
    process.stdout.write(`Seeded ${STATUSES} statuses in ${Date.now() - started} ms\n`);

    const queries: [string, string][] = [
      ['common word', 'w1'],
      ['mid-frequency word', 'w40'],
      ['rare word', 'w1500'],
      ['two words (AND)', 'w2 w3'],
      ['three words (AND)', 'w1 w5 w9'],
      ['no match', 'zzzz'],
    ];
    for (const [name, q] of queries) {
      const times: number[] = [];
      let hits = 0;
      for (let r = 0; r < RUNS + 5; r++) {
        const t = performance.now();
        const found = await searchStatuses(viewer, { q, limit: 20, offset: 0 });
        if (r >= 5) times.push(performance.now() - t);
        hits = found.length;
      }
      rows.push({ query: name, q, results: hits, runs: RUNS, 'p50 ms': percentile(times, 50).toFixed(1), 'p99 ms': percentile(times, 99).toFixed(1) });
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nStatus search over ${STATUSES} statuses against dynalite (in-process, limit 20):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
