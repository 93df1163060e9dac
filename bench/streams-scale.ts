// Streaming at scale (issue 27): what a public post's fan-out reads and writes as listeners grow, now that the
// online set and the public channels are sharded (lib/db/keys.ts STREAM_SHARDS). Per step, 0 to 1,000 listeners:
// half WebSocket connections (connection, online and public:local subscription items, as $connect writes them
// through saveConnection), half server-sent-event listeners (saveSseListener), every one of an account; then
// BENCH_COUNT public posts one after another, each fanned out with every queued page run. Printed per post:
// DynamoDB read calls, the Queries of the online shards and of the channel shards, read and write units
// (EXPOSE_METRICS: as dynalite reports them), p50 ms. Then the home fan-out rate for BENCH_FOLLOWERS followers
// (bench/fanout.ts's approach: one page per queue message, run one after another).
// In-process (dynalite; a local HTTP server stands in for API Gateway's Management API and answers at once).
// Usage: npm run bench:streams-scale   (BENCH_LISTENERS=0,250,500,1000 BENCH_COUNT=20 BENCH_FOLLOWERS=10000,20000)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, percentile, printTable } from './lib';

const LISTENER_COUNTS = (process.env.BENCH_LISTENERS ?? '0,250,500,1000').split(',').map(Number);
const POSTS = Number(process.env.BENCH_COUNT ?? 20);
const FOLLOWERS = (process.env.BENCH_FOLLOWERS ?? '10000,20000').split(',').filter(Boolean).map(Number);

async function main() {
  const emulators = await inProcessEmulators();
  process.env.QUEUE_MODE = 'inline';
  process.env.EXPOSE_METRICS = '1';
  let posted = 0;
  const management = createServer((req, res) => {
    if (req.method === 'POST') posted++;
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => management.listen(0, '127.0.0.1', () => resolve()));
  process.env.STREAMING_URL = `ws://127.0.0.1:${(management.address() as AddressInfo).port}`;

  const { dynamo, meterDb } = await import('../lib/aws');
  const { saveConnection, saveSseListener } = await import('../lib/db/connections');
  const { followRecord } = await import('../lib/db/follows');
  const { STREAM_SHARDS } = await import('../lib/db/keys');
  const { statusItem, statusRecord } = await import('../lib/db/statuses');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker } = await import('../lib/queue');
  const { inRequestScope } = await import('../lib/request_scope');
  const { fanoutMessage } = await import('../lib/queue/messages');
  const { bindingFor } = await import('../lib/streaming/connections');
  const { FANOUT_PAGE_SIZE, fanOutPage } = await import('../lib/timelines/fanout');
  const { processFanout } = await import('../lib/timelines/fanout_queue');
  const { aBareAccount, aPostedStatus, aUser } = await import('../test/support/factories');

  const queued: string[] = [];
  registerInlineWorker('fanout', async (event: SQSEvent) => {
    for (const r of event.Records) queued.push(r.body);
    return { batchItemFailures: [] };
  });
  const drain = async () => {
    // As the worker runs each message: in a request scope of its own (lib/queue/worker.ts).
    while (queued.length > 0) {
      const message = fanoutMessage.parse(JSON.parse(queued.shift()!));
      await inRequestScope(() => processFanout(message));
    }
  };

  const rows: Record<string, string | number>[] = [];
  const fanoutRows: Record<string, string | number>[] = [];
  try {
    for (const n of LISTENER_COUNTS) {
      process.env.TABLE_NAME = `streams-scale-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const opened = Array.from({ length: n }, (_, i) => i);
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < opened.length) {
          const i = next++;
          // A listener is a real account: its item says whether it has filters (lib/db/viewer_summary.ts).
          const accountId = (await aBareAccount()).id;
          const binding = bindingFor({ stream: 'public:local' }, { accountId, scopes: ['read'] });
          const id = `${randomUUID().replace(/-/g, '').slice(0, 14)}=`;
          if (i % 2 === 0) {
            const saved = await saveConnection({ connectionId: id, accountId, tokenId: null, scopes: ['read'] }, binding);
            if (!saved.ok) throw new Error('connection refused');
          } else {
            await saveSseListener({ listenerId: id, accountId }, [binding]);
          }
        }
      }));
      const { account } = await aUser();
      const ms: number[] = [];
      const totals = { reads: 0, onlineQueries: 0, channelQueries: 0, readUnits: 0, writeUnits: 0, sent: 0 };
      for (let i = 0; i < POSTS + 2; i++) {
        const status = await aPostedStatus(account, { visibility: 'public', text: `bench ${i}`, contentHtml: `<p>bench ${i}</p>` });
        posted = 0;
        let onlineQueries = 0;
        let channelQueries = 0;
        const stop = dynamo().observe((op, given) => {
          if (op !== 'Query') return;
          const pk = String((given as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues?.[':p'] ?? '');
          if (pk.startsWith('ONLINE')) onlineQueries++;
          else if (pk.startsWith('CHANNEL#')) channelQueries++;
        });
        const meter = { calls: 0, writes: 0 };
        const t = performance.now();
        try {
          await meterDb(meter, async () => {
            await inRequestScope(() => fanOutPage(status.id));
            await drain();
          });
        } finally {
          stop();
        }
        if (i < 2) continue; // warm-up
        ms.push(performance.now() - t);
        const m = meter as { calls: number; writes: number; readUnits?: number; writeUnits?: number };
        totals.reads += m.calls - m.writes;
        totals.onlineQueries += onlineQueries;
        totals.channelQueries += channelQueries;
        totals.readUnits += m.readUnits ?? 0;
        totals.writeUnits += m.writeUnits ?? 0;
        totals.sent += posted;
      }
      const per = (x: number) => Math.round((x / POSTS) * 100) / 100;
      rows.push({
        listeners: n,
        'ws / sse': `${Math.ceil(n / 2)} / ${Math.floor(n / 2)}`,
        'read calls/post': per(totals.reads),
        'online Queries/post': per(totals.onlineQueries),
        'channel Queries/post': per(totals.channelQueries),
        'RRU/post': per(totals.readUnits),
        'WRU/post': per(totals.writeUnits),
        'frames/post': per(totals.sent),
        'p50 ms/post': Math.round(percentile(ms, 50)),
      });
    }

    for (const n of FOLLOWERS) {
      process.env.TABLE_NAME = `streams-fanout-${n}-${randomBytes(3).toString('hex')}`;
      await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME);
      const authorId = newId();
      const now = new Date().toISOString();
      const records = Array.from({ length: n }, (_, i) => followRecord({ id: newId(), followerId: newId(Date.now() - n + i), followedId: authorId, showReblogs: true, notify: false, createdAt: now }));
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < records.length) {
          const chunk = records.slice(next, next + 25);
          next += 25;
          await batchWrite(chunk);
        }
      }));
      const id = newId();
      const status = statusItem.parse({ id, accountId: authorId, createdAt: now, visibility: 'public', conversationId: id, text: 'bench', contentHtml: '<p>bench</p>' });
      await batchWrite([statusRecord(status)]);
      queued.push(JSON.stringify({ type: 'create', statusId: status.id }));
      const pages: number[] = [];
      while (queued.length > 0) {
        const message = fanoutMessage.parse(JSON.parse(queued.shift()!));
        const t = performance.now();
        await inRequestScope(() => processFanout(message));
        pages.push(performance.now() - t);
      }
      const total = pages.reduce((a, b) => a + b, 0);
      fanoutRows.push({
        followers: n,
        pages: pages.length,
        'total ms': Math.round(total),
        'home entries/s': Math.round(((n + 1) / total) * 1000),
        'page p50 ms': Math.round(percentile(pages, 50)),
        [`entries/s per page (${FANOUT_PAGE_SIZE})`]: Math.round((FANOUT_PAGE_SIZE / percentile(pages, 50)) * 1000),
      });
    }
    process.stdout.write(`\nA public post's fan-out as listeners grow (${STREAM_SHARDS} shards; ${POSTS} posts per step, every queued page run; dynalite in-process):\n`);
    printTable(rows);
    process.stdout.write(`\nHome fan-out (one page of ${FANOUT_PAGE_SIZE} followers per message, one worker invocation per page, one after another):\n`);
    printTable(fanoutRows);
  } finally {
    management.close();
    await emulators.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
