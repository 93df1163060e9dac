// Delivery throughput of one deliver worker with retries in play: one activity to
// 200 inboxes on 10 loopback servers, of which a share fail (answer 500, or refuse
// connections on a closed port). The worker's SQS handler (functions/workers/deliver.ts)
// is fed batches of 10 from an in-memory queue, one batch after another, as one
// consumer with batchSize 10 would; a failed delivery's retry (attempt+1) goes back
// on that queue and is worked at once (its delay is SQS's to keep, not measured
// here), until its last attempt fails. Against dynalite in this process (server
// health counting, the signer's key). Prints figures per failing share; no assertions.
// Usage: npx tsx bench/federation-delivery-retries.ts   (DELIVERY_INBOXES=200 by default)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { federationBench, printTable } from './lib';

const INBOXES = Number(process.env.DELIVERY_INBOXES ?? 200);
const SERVERS = 10;
const BATCH = 10;

type Peer = { origin: string; posts: number; close: () => Promise<void> };

async function peer(status: number): Promise<Peer> {
  const entry: Peer = { origin: '', posts: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      entry.posts++;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  entry.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  entry.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return entry;
}

/** A port nothing listens on: connections are refused at once. */
async function closedOrigin(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function main() {
  // Each last failed attempt logs an error (for the dead-letter queue): expected here, by the hundred.
  const emulators = await federationBench('delivery-retries', { LOG_LEVEL: 'silent' });
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { deliverTo, MAX_ATTEMPTS } = await import('../lib/federation/deliver');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker, sqsEvent } = await import('../lib/queue');
  const { handler: deliverWorker } = await import('../functions/workers/deliver');

  // The queue: whatever is sent to `deliver` (first attempts and retries) waits here for the next batch.
  const queue: unknown[] = [];
  registerInlineWorker('deliver', async (event: SQSEvent) => {
    for (const r of event.Records) queue.push(JSON.parse(r.body));
    return { batchItemFailures: [] };
  });

  const created = await createLocalAccount({ id: newId(), username: 'sender', email: 'sender@example.com', passwordHash: 'x', confirmedAt: new Date().toISOString() });
  if (!created.ok) throw new Error('local account');
  const sender = created.account;

  const rows: Record<string, string | number>[] = [];
  const scenario = async (name: string, failing500: number, refused: number) => {
    const peers = await Promise.all(Array.from({ length: SERVERS - failing500 - refused }, () => peer(202)));
    const bad = await Promise.all(Array.from({ length: failing500 }, () => peer(500)));
    const closed = await Promise.all(Array.from({ length: refused }, () => closedOrigin()));
    const origins = [...peers.map((p) => p.origin), ...bad.map((p) => p.origin), ...closed];
    const inboxes = Array.from({ length: INBOXES }, (_, i) => `${origins[i % origins.length]}/users/u${i}/inbox`);
    const activity = { '@context': 'https://www.w3.org/ns/activitystreams', id: `https://bench.example/users/sender/statuses/${newId()}/activity`, type: 'Create', actor: 'https://bench.example/users/sender', object: { id: 'https://bench.example/users/sender/statuses/1', type: 'Note', content: '<p>bench</p>' } };
    const started = performance.now();
    await deliverTo(activity, inboxes, { accountId: sender.id });
    let handled = 0;
    let dead = 0;
    while (queue.length > 0) {
      const batch = queue.splice(0, BATCH);
      handled += batch.length;
      const answer = await deliverWorker(sqsEvent('deliver', batch));
      dead += answer.batchItemFailures.length;
    }
    const ms = performance.now() - started;
    const delivered = peers.reduce((n, p) => n + p.posts, 0);
    rows.push({
      inboxes: name,
      'messages worked': handled,
      delivered,
      'failed for good': dead,
      'total ms': Math.round(ms),
      'messages/s': Math.round((handled / ms) * 1000),
      'delivered/s': Math.round((delivered / ms) * 1000),
    });
    await Promise.all([...peers, ...bad].map((p) => p.close()));
  };

  try {
    await scenario('warm-up', 0, 0);
    rows.length = 0;
    await scenario('all healthy', 0, 0);
    await scenario('10% answer 500', 1, 0);
    await scenario('20% answer 500', 2, 0);
    await scenario('10% 500, 10% refused', 1, 1);
    await scenario('40% answer 500', 4, 0);
    process.stdout.write(`\nOne deliver worker, batches of ${BATCH} one after another; ${INBOXES} inboxes on ${SERVERS} servers; a failing inbox is tried ${MAX_ATTEMPTS} times (retries worked at once):\n`);
    printTable(rows);
  } finally {
    await emulators.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
