// Sweeper time: one run of publishDueScheduled (lib/statuses/scheduled.ts) over
// 1,000 due scheduled statuses from 50 accounts with followers, each published
// through the real posting path (postStatus: the posting transaction with the
// claim, search index, then the fan-out enqueue), against dynalite and s3rver
// started in this process (the same emulators as the local stack).
// The queue runs in its in-process mode (lib/queue, QUEUE_MODE=inline): the
// fan-out messages are collected as SQS would take them, so the run's time is
// the sweeper's own; the collected messages are then handed to the real fan-out
// worker and timed apart, as the separate Lambda would run them.
// Usage: npm run bench:sweeper   (SWEEPER_ACCOUNTS=50, SWEEPER_PER_ACCOUNT=20, SWEEPER_FOLLOWERS=20 by default)
import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { inProcessEmulators, printTable } from './lib';

const ACCOUNTS = Number(process.env.SWEEPER_ACCOUNTS ?? 50);
const PER_ACCOUNT = Number(process.env.SWEEPER_PER_ACCOUNT ?? 20);
const FOLLOWERS = Number(process.env.SWEEPER_FOLLOWERS ?? 20);
const MINUTE = 60_000;

async function main() {
  const emulators = await inProcessEmulators();
  process.env.TABLE_NAME = `sweeper-${randomBytes(3).toString('hex')}`;
  process.env.QUEUE_MODE = 'inline';
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  // Imported after the environment points at the emulators.
  const { dbCalls } = await import('../lib/aws');
  const { createAppInput, registerApp } = await import('../lib/apps');
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { accountStatusesPage } = await import('../lib/db/account_statuses');
  const { followRecord } = await import('../lib/db/follows');
  const { dueScheduled } = await import('../lib/db/scheduled');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { QUEUES, registerInlineWorker } = await import('../lib/queue');
  const { publishDueScheduled, scheduleStatus } = await import('../lib/statuses/scheduled_posting');
  const { issueAccessToken } = await import('../lib/tokens');
  const { processFanout } = await import('../functions/workers/fanout');
  const { fanoutMessage } = await import('../lib/queue/messages');

  const expected = ACCOUNTS * PER_ACCOUNT;
  const rows: Record<string, string | number>[] = [];
  try {
    // Every queue collects what it is sent, as SQS would hold it for its worker.
    const queued = new Map<string, unknown[]>(QUEUES.map((q) => [q, []]));
    for (const queue of QUEUES) {
      registerInlineWorker(queue, async (event: SQSEvent) => {
        for (const r of event.Records) queued.get(queue)!.push(JSON.parse(r.body));
        return { batchItemFailures: [] };
      });
    }

    const started = Date.now();
    const { app } = await registerApp(createAppInput.parse({ client_name: 'sweeper bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }));
    const authors = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const created = await createLocalAccount({ id: newId(), username: `author${a}`, email: `author${a}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
      if (!created.ok) throw new Error('bench: could not create an author');
      const { token } = await issueAccessToken(app, created.account.id, ['write']);
      authors.push({ account: created.account, token });
    }
    const now = new Date().toISOString();
    const follows = authors.flatMap(({ account }) =>
      Array.from({ length: FOLLOWERS }, () => followRecord({ id: newId(), followerId: newId(), followedId: account.id, showReblogs: true, notify: false, createdAt: now })),
    );
    await batchWrite(follows);
    // Scheduled six minutes ahead (the five-minute rule holds), then swept as if the clock had moved on ten.
    const at = new Date(Date.now() + 6 * MINUTE).toISOString();
    for (let i = 0; i < PER_ACCOUNT; i++) {
      await Promise.all(authors.map(({ account, token }, a) =>
        scheduleStatus(account, token, { status: `scheduled status ${i} of author ${a} #sweeper`, mediaIds: [], spoilerText: '', visibility: 'public', scheduledAt: at })));
    }
    const sweepAt = Date.now() + 10 * MINUTE;
    const due = await dueScheduled(sweepAt, expected + 1);
    if (due.length !== expected) throw new Error(`bench: ${due.length} due scheduled statuses, expected ${expected}`);
    process.stdout.write(`Seeded ${ACCOUNTS} accounts × ${FOLLOWERS} followers and ${expected} due scheduled statuses in ${Date.now() - started} ms\n`);

    dbCalls.reset();
    const t = performance.now();
    const run = await publishDueScheduled(sweepAt);
    const ms = performance.now() - t;
    const calls = dbCalls.count;

    // Exactly once: every one published, each with one fan-out message, nothing left due, a second run publishes none.
    let posted = 0;
    for (const { account } of authors) posted += (await accountStatusesPage(account.id, { limit: PER_ACCOUNT + 10 }, {})).length;
    const fanouts = queued.get('fanout')!.map((m) => fanoutMessage.parse(m));
    const fannedOut = new Set(fanouts.map((m) => m.statusId)).size;
    const left = (await dueScheduled(sweepAt, expected)).length;
    const again = await publishDueScheduled(sweepAt);
    const checks = { published: run.published, posted, fanouts: fanouts.length, fannedOut, left, again: again.published };
    if (run.published !== expected || posted !== expected || fanouts.length !== expected || fannedOut !== expected || left !== 0 || again.published !== 0) {
      throw new Error(`bench: not exactly ${expected} published: ${JSON.stringify(checks)}`);
    }
    rows.push({
      step: 'sweeper run (publishDueScheduled)',
      statuses: run.published,
      ms: Math.round(ms),
      'statuses/s': Math.round((run.published / ms) * 1000),
      'DynamoDB calls': calls,
      'calls/status': (calls / run.published).toFixed(1),
    });

    // The fan-out worker's share, run as its Lambda would run the collected messages.
    dbCalls.reset();
    const f = performance.now();
    for (const message of fanouts) await processFanout(message);
    const fanoutMs = performance.now() - f;
    rows.push({
      step: `fan-out of those (${FOLLOWERS} followers each)`,
      statuses: fanouts.length,
      ms: Math.round(fanoutMs),
      'statuses/s': Math.round((fanouts.length / fanoutMs) * 1000),
      'DynamoDB calls': dbCalls.count,
      'calls/status': (dbCalls.count / fanouts.length).toFixed(1),
    });
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nSweeper against dynalite (in-process; ${expected} due statuses, each published exactly once):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
