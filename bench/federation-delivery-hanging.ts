// Delivery to healthy servers while one server hangs (issue 27): one post after another, each to the shared
// inboxes of SERVERS loopback servers, of which one (in the second case) accepts the connection and never answers,
// so each POST to it lasts the fetch's whole time limit (lib/federation/fetch.ts, 10 s). The deliver worker's SQS
// handler (functions/workers/deliver.ts) is fed as Lambda's event source would feed it: at most CONSUMERS batches of
// BATCH at once (workerMaximumConcurrency 10, batchSize 10), from an in-memory stand-in for SQS that keeps each
// message's delay (lib/queue registerInlineQueue). Measured: deliveries per second to the healthy servers, from the
// first deliverTo to the last healthy POST. Against dynalite in this process; no assertions.
// Figures (2 cores shared with a test suite, load 9-20, so noisy; healthy deliveries/s): before the per-server slots
// 120-223 with 10 healthy servers, 8-9 with one hanging; after, 34-64 with 10 healthy, 20-42 with one hanging.
// Usage: npx tsx bench/federation-delivery-hanging.ts   (HANGING_POSTS=50 by default)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { federationBench, printTable } from './lib';

const SERVERS = 10;
const POSTS = Number(process.env.HANGING_POSTS ?? 50);
const CONSUMERS = 10;
const BATCH = 10;

type Peer = { origin: string; posts: number; close: () => Promise<void> };

async function peer(hang: boolean): Promise<Peer> {
  const entry: Peer = { origin: '', posts: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      entry.posts++;
      if (!hang) res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  entry.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  entry.close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return entry;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const emulators = await federationBench('delivery-hanging', { LOG_LEVEL: 'silent' });
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { deliverTo } = await import('../lib/federation/deliver');
  const { newId } = await import('../lib/ids');
  const { registerInlineQueue, sqsEvent } = await import('../lib/queue');
  const { handler: deliverWorker } = await import('../functions/workers/deliver');

  // The stand-in for SQS: each message becomes visible once its delay is over.
  const queue: { body: unknown; visibleAt: number }[] = [];
  registerInlineQueue('deliver', ({ body, delaySeconds }) => queue.push({ body, visibleAt: Date.now() + delaySeconds * 1000 }));
  const takeBatch = () => {
    const now = Date.now();
    const batch: unknown[] = [];
    for (let i = 0; i < queue.length && batch.length < BATCH; ) {
      if (queue[i]!.visibleAt <= now) batch.push(queue.splice(i, 1)[0]!.body);
      else i++;
    }
    return batch;
  };

  const created = await createLocalAccount({ id: newId(), username: 'sender', email: 'sender@example.com', passwordHash: 'x', confirmedAt: new Date().toISOString() });
  if (!created.ok) throw new Error('local account');
  const sender = created.account;

  const rows: Record<string, string | number>[] = [];
  const scenario = async (name: string, hanging: number) => {
    const healthy = await Promise.all(Array.from({ length: SERVERS - hanging }, () => peer(false)));
    const hung = await Promise.all(Array.from({ length: hanging }, () => peer(true)));
    const inboxes = [...healthy, ...hung].map((p) => `${p.origin}/inbox`);
    const expected = healthy.length * POSTS;
    const delivered = () => healthy.reduce((n, p) => n + p.posts, 0);
    queue.length = 0;
    const started = performance.now();
    for (let n = 0; n < POSTS; n++) {
      const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `https://bench.example/users/sender/statuses/${newId()}/activity`, type: 'Create', actor: 'https://bench.example/users/sender', object: { id: `https://bench.example/users/sender/statuses/${n}`, type: 'Note', content: '<p>bench</p>' } };
      await deliverTo(activity, inboxes, { accountId: sender.id });
    }
    let failed = 0;
    const consumer = async () => {
      while (delivered() < expected) {
        const batch = takeBatch();
        if (batch.length === 0) {
          await sleep(20);
          continue;
        }
        failed += (await deliverWorker(sqsEvent('deliver', batch))).batchItemFailures.length;
      }
    };
    await Promise.all(Array.from({ length: CONSUMERS }, consumer));
    const ms = performance.now() - started;
    rows.push({
      case: name,
      'healthy POSTs': delivered(),
      'POSTs to the hanging server': hung.reduce((n, p) => n + p.posts, 0),
      'messages left queued': queue.length,
      'failed (DLQ path)': failed,
      'total s': (ms / 1000).toFixed(1),
      'healthy deliveries/s': Math.round((delivered() / ms) * 1000),
    });
    await Promise.all([...healthy, ...hung].map((p) => p.close()));
  };

  try {
    await scenario('warm-up', 0);
    rows.length = 0;
    await scenario(`${SERVERS} healthy servers`, 0);
    await scenario(`${SERVERS - 1} healthy + 1 hanging`, 1);
    process.stdout.write(
      `\n${POSTS} posts, each to ${SERVERS} shared inboxes; ${CONSUMERS} consumers of batches of ${BATCH} (records side by side), delays kept:\n`,
    );
    printTable(rows);
  } finally {
    await emulators.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
