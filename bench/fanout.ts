// Fan-out rate: home entries written per second by the fan-out worker for an
// author with 1,000, 10,000 and 50,000 followers, against dynalite and s3rver
// started in this process (the same emulators as the local stack). The worker
// runs one page of followers per queue message; the queue here keeps what it is
// sent and the bench hands each message to the worker in turn, as SQS with a
// batch size of 1 and one consumer would, so the time per page is measured too.
// Usage: npm run bench:fanout        (FANOUT_SIZES=1000,10000,50000 by default)
import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, percentile, printTable } from './lib';

const SIZES = (process.env.FANOUT_SIZES ?? '1000,10000,50000').split(',').map(Number);

async function main() {
  const emulators = await inProcessEmulators();
  // The queue keeps what it is sent in this process (lib/queue, QUEUE_MODE=inline).
  process.env.QUEUE_MODE = 'inline';
  // Imported after the environment points at the emulators.
  const { followRecord } = await import('../lib/db/follows');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker } = await import('../lib/queue');
  const { FANOUT_PAGE_SIZE } = await import('../lib/timelines/fanout');
  const { fanoutMessage } = await import('../lib/queue/messages');
  const { processFanout } = await import('../lib/timelines/fanout_queue');

  const queued: string[] = [];
  registerInlineWorker('fanout', async (event: SQSEvent) => {
    for (const r of event.Records) queued.push(r.body);
    return { batchItemFailures: [] };
  });
  /** Runs `first` and every page it leads to; answers the time of each page. */
  const chain = async (first: unknown) => {
    queued.push(JSON.stringify(first));
    const pages: number[] = [];
    while (queued.length > 0) {
      const message = fanoutMessage.parse(JSON.parse(queued.shift()!));
      const t = performance.now();
      await processFanout(message);
      pages.push(performance.now() - t);
    }
    return { ms: pages.reduce((a, b) => a + b, 0), pages };
  };

  const rows: Record<string, string | number>[] = [];
  try {
    for (const n of SIZES) {
      process.env.TABLE_NAME = `fanout-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const authorId = newId();
      const now = new Date().toISOString();
      const followers = Array.from({ length: n }, (_, i) => newId(Date.now() - n + i));
      const records = followers.map((followerId) => followRecord({ id: newId(), followerId, followedId: authorId, showReblogs: true, notify: false, createdAt: now }));
      const seeded = performance.now();
      // Seeded as the fan-out writes: BatchWrites of 25, 8 in flight.
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < records.length) {
          const chunk = records.slice(next, next + 25);
          next += 25;
          await batchWrite(chunk);
        }
      }));
      const seedMs = performance.now() - seeded;
      const id = newId();
      const status = statusItem.parse({ id, accountId: authorId, createdAt: now, visibility: 'public', conversationId: id, text: 'bench', contentHtml: '<p>bench</p>' });
      await batchWrite([statusRecord(status)]);
      const created = await chain({ type: 'create', statusId: status.id });
      const removed = await chain({ type: 'delete', statusId: status.id, accountId: authorId, mentionIds: [] });
      const entries = n + 1;
      rows.push({
        followers: n,
        'seed edges/s': Math.round((n / seedMs) * 1000),
        pages: created.pages.length,
        'create ms': Math.round(created.ms),
        'entries/s': Math.round((entries / created.ms) * 1000),
        'page p50 ms': Math.round(percentile(created.pages, 50)),
        'page max ms': Math.round(percentile(created.pages, 100)),
        'delete ms': Math.round(removed.ms),
        'removed/s': Math.round((entries / removed.ms) * 1000),
      });
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nFan-out against dynalite (in-process, one page of ${FANOUT_PAGE_SIZE} followers per message, messages one after another):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
