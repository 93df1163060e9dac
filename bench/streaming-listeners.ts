// A public post's fan-out with anonymous listeners on the public stream: the first fan-out page (the posting
// path: what the fan-out worker does before the post has reached its followers, its lists and its remote
// audience) with 0 and with 500 listeners, its postToConnection and DynamoDB calls, and the queued pages that
// reach the listeners past the first SHARED_PAGE_SIZE. In-process (dynalite; a local HTTP server stands in for
// API Gateway's Management API and answers at once); listeners opened through the real $connect handler.
// Usage: npm run bench:streaming-listeners   (BENCH_LISTENERS=0,500 BENCH_COUNT=10)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, percentile, printTable } from './lib';

const LISTENER_COUNTS = (process.env.BENCH_LISTENERS ?? '0,500').split(',').map(Number);
const POSTS = Number(process.env.BENCH_COUNT ?? 10);

async function main() {
  const emulators = await inProcessEmulators();
  process.env.QUEUE_MODE = 'inline';
  let posts = 0;
  const management = createServer((req, res) => {
    if (req.method === 'POST') posts++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => management.listen(0, '127.0.0.1', () => resolve()));
  process.env.STREAMING_URL = `ws://127.0.0.1:${(management.address() as AddressInfo).port}`;

  const { dbCalls } = await import('../lib/aws');
  const { registerInlineWorker } = await import('../lib/queue');
  const { fanoutMessage } = await import('../lib/queue/messages');
  const { fanOutPage } = await import('../lib/timelines/fanout');
  const { processFanout } = await import('../lib/timelines/fanout_queue');
  const { handler: connect } = await import('../functions/streaming/connect');
  const { aPostedStatus, aUser } = await import('../test/support/factories');

  const queued: string[] = [];
  registerInlineWorker('fanout', async (event: SQSEvent) => {
    for (const r of event.Records) queued.push(r.body);
    return { batchItemFailures: [] };
  });

  const rows: Record<string, string | number>[] = [];
  try {
    for (const n of LISTENER_COUNTS) {
      process.env.TABLE_NAME = `listeners-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      for (let i = 0; i < n; i++) {
        const res = await connect({
          requestContext: { connectionId: `${randomUUID().slice(0, 14)}=`, routeKey: '$connect', eventType: 'CONNECT', requestId: randomUUID(), identity: { sourceIp: `10.0.${i >> 8}.${i & 255}` } },
          headers: { Host: 'social.example' },
          queryStringParameters: { stream: 'public' },
          isBase64Encoded: false,
        });
        if (res.statusCode !== 200) throw new Error(`connect refused: ${res.statusCode} ${res.body}`);
      }
      const { account } = await aUser();
      const first: number[] = [];
      const rest: number[] = [];
      let firstPosts = 0;
      let firstDb = 0;
      for (let i = 0; i < POSTS + 2; i++) {
        const status = await aPostedStatus(account, { visibility: 'public', text: `bench ${i}`, contentHtml: `<p>bench ${i}</p>` });
        posts = 0;
        dbCalls.reset();
        const t = performance.now();
        await fanOutPage(status.id);
        const ms = performance.now() - t;
        const [p, d] = [posts, dbCalls.count];
        const t2 = performance.now();
        while (queued.length > 0) await processFanout(fanoutMessage.parse(JSON.parse(queued.shift()!)));
        if (i < 2) continue; // warm-up
        first.push(ms);
        rest.push(performance.now() - t2);
        firstPosts = p;
        firstDb = d;
      }
      rows.push({
        listeners: n,
        'posting page p50 ms': Math.round(percentile(first, 50)),
        'posting page max ms': Math.round(percentile(first, 100)),
        'posting postToConnection': firstPosts,
        'posting DynamoDB calls': firstDb,
        'queued pages p50 ms': Math.round(percentile(rest, 50)),
      });
    }
  } finally {
    management.close();
    await emulators.stop();
  }
  printTable(rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
