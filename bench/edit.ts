// Editing a status (PUT /api/v1/statuses/:id) by an author with N followers, and reading the
// versions back (GET /api/v1/statuses/:id/history and /source): the request's time and DynamoDB
// calls (its X-Db-Calls header), then the fan-out worker's share of the edit (the `update` message:
// status.update to listening streams, update notifications queued for boosters, the Update to
// remote followers) and the notify worker's, counted with lib/aws's call counter, as their own
// Lambdas would run them. An edit writes no home entry, so its cost should not grow with N.
// Against dynalite and s3rver started in this process (the same emulators as the local stack);
// the handlers are called with API Gateway events, the queues collect their messages (QUEUE_MODE
// inline) and the bench hands each to its worker in turn. No account has an open stream here.
// Usage: npx tsx bench/edit.ts (npm run bench:edit once package.json has it)   (EDIT_FOLLOWERS=100,1000,10000  EDIT_BOOSTERS=5  EDIT_COUNT=20 by default)
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent } from 'aws-lambda';
import { ensureTable } from '../infra/local/bootstrap';
import { buildEvent, lambdaContext, type Call } from '../test/support/http';
import { inProcessEmulators, percentile, printTable } from './lib';

const SIZES = (process.env.EDIT_FOLLOWERS ?? '100,1000,10000').split(',').map(Number);
const BOOSTERS = Number(process.env.EDIT_BOOSTERS ?? 5);
const EDITS = Number(process.env.EDIT_COUNT ?? 20);
const READS = Number(process.env.EDIT_READS ?? 50);

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Timed = { ms: number; dbCalls: number; status: number; body: string };

/** One request through a handler: its time, its X-Db-Calls, its answer (a failure stops the bench). */
async function request(handler: Handler, call: Call): Promise<Timed> {
  const started = performance.now();
  const res = await handler(buildEvent(call), lambdaContext());
  const ms = performance.now() - started;
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const answer = { ms, dbCalls: Number(headers['x-db-calls'] ?? NaN), status: res.statusCode ?? 200, body: res.body ?? '' };
  if (answer.status >= 400) throw new Error(`bench: ${call.method ?? 'GET'} ${call.path} answered ${answer.status} ${answer.body}`);
  return answer;
}

/** p50/max of a set of timings, and the distinct call counts seen (`7` or `7/9`). */
const summary = (samples: { ms: number; calls: number }[]) => ({
  'p50 ms': percentile(samples.map((s) => s.ms), 50).toFixed(1),
  'max ms': percentile(samples.map((s) => s.ms), 100).toFixed(1),
  'DynamoDB calls': [...new Set(samples.map((s) => s.calls))].sort((a, b) => a - b).join('/'),
});

async function main() {
  const emulators = await inProcessEmulators();
  Object.assign(process.env, {
    QUEUE_MODE: 'inline',
    STAGE: 'local',
    BASE_URL: 'https://bench.example',
    SECRET_KEY_BASE: `bench-${randomBytes(8).toString('hex')}`,
    TABLE_NAME: `edit-${randomBytes(3).toString('hex')}`,
    // One address sends every request of the bench, far past a client's rate limits (bench/lib.ts BENCH_STACK_ENV).
    RATE_LIMIT_FACTOR: '1000',
    // The handlers answer X-Db-Calls (lib/http) only when asked to, as the local stack does.
    EXPOSE_METRICS: '1',
  });
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  // Imported after the environment points at the emulators.
  const { dbCalls } = await import('../lib/aws');
  const { createAppInput, registerApp } = await import('../lib/apps');
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { followRecord } = await import('../lib/db/follows');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { QUEUES, registerInlineWorker } = await import('../lib/queue');
  const { issueAccessToken } = await import('../lib/tokens');
  const { handler: fanoutWorker } = await import('../functions/workers/fanout');
  const { handler: notifyWorker } = await import('../functions/workers/notify');
  const { handler: createStatus } = await import('../functions/statuses/create');
  const { handler: updateStatus } = await import('../functions/statuses/update');
  const { handler: reblogStatus } = await import('../functions/statuses/reblog');
  const { handler: statusHistory } = await import('../functions/statuses/history');
  const { handler: statusSource } = await import('../functions/statuses/source');

  // Every queue keeps what it is sent, as SQS would hold it for its worker.
  const queued = new Map<string, string[]>(QUEUES.map((q) => [q, []]));
  for (const queue of QUEUES) {
    registerInlineWorker(queue, async (event: SQSEvent) => {
      for (const r of event.Records) queued.get(queue)!.push(r.body);
      return { batchItemFailures: [] };
    });
  }
  const workers: Partial<Record<string, (event: SQSEvent, context: Context) => Promise<unknown>>> = {
    fanout: fanoutWorker as (event: SQSEvent, context: Context) => Promise<unknown>,
    notify: notifyWorker as (event: SQSEvent, context: Context) => Promise<unknown>,
  };
  const sqs = (body: string): SQSEvent => ({
    Records: [{ messageId: newId(), receiptHandle: 'bench', body, attributes: {} as SQSEvent['Records'][0]['attributes'], messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench', awsRegion: 'us-east-1' }],
  });
  /** Hands every message of `queue` to its worker, one per invocation; answers the time and calls of each. */
  const drain = async (queue: 'fanout' | 'notify') => {
    const runs: { ms: number; calls: number }[] = [];
    const messages = queued.get(queue)!;
    while (messages.length > 0) {
      const body = messages.shift()!;
      dbCalls.reset();
      const t = performance.now();
      await workers[queue]!(sqs(body), lambdaContext());
      runs.push({ ms: performance.now() - t, calls: dbCalls.count });
    }
    return runs;
  };
  /** Drops what other queues were sent (deliveries, pushes, cards): not this bench's subject. */
  const forgetOthers = () => {
    for (const [queue, messages] of queued) if (queue !== 'fanout' && queue !== 'notify') messages.length = 0;
  };

  const { app } = await registerApp(createAppInput.parse({ client_name: 'edit bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }));
  const localAccount = async (username: string) => {
    const created = await createLocalAccount({ id: newId(), username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
    if (!created.ok) throw new Error(`bench: could not create ${username}`);
    const { raw } = await issueAccessToken(app, created.account.id, ['read', 'write']);
    return { account: created.account, token: raw };
  };

  const rows: Record<string, string | number>[] = [];
  try {
    for (const [round, n] of SIZES.entries()) {
      const author = await localAccount(`author${round}`);
      // Followers as the fan-out reads them (follow edges; their homes get the status's entry).
      const now = new Date().toISOString();
      const follows = Array.from({ length: n }, () => followRecord({ id: newId(), followerId: newId(), followedId: author.account.id, showReblogs: true, notify: false, createdAt: now }));
      for (let i = 0; i < follows.length; i += 25 * 8) {
        await Promise.all(Array.from({ length: 8 }, (_, k) => follows.slice(i + k * 25, i + (k + 1) * 25)).filter((c) => c.length > 0).map((chunk) => batchWrite(chunk)));
      }
      const posted = JSON.parse((await request(createStatus, { method: 'POST', path: '/api/v1/statuses', token: author.token, json: { status: 'version 0 of the bench status', visibility: 'public' } })).body) as { id: string };
      const statusPath = (suffix = '') => ({ path: `/api/v1/statuses/${posted.id}${suffix}`, pathParameters: { id: posted.id } });
      // Local boosters: the edit notifies each of them (`update`).
      for (let b = 0; b < BOOSTERS; b++) {
        const booster = await localAccount(`booster${round}x${b}`);
        await request(reblogStatus, { method: 'POST', ...statusPath('/reblog'), token: booster.token, json: {} });
      }
      const homeWrites = await drain('fanout');
      await drain('notify');
      forgetOthers();

      const edits: { ms: number; calls: number }[] = [];
      const updates: { ms: number; calls: number }[] = [];
      const notifications: { ms: number; calls: number }[] = [];
      for (let e = 1; e <= EDITS; e++) {
        const res = await request(updateStatus, { method: 'PUT', ...statusPath(), token: author.token, json: { status: `version ${e} of the bench status` } });
        edits.push({ ms: res.ms, calls: res.dbCalls });
        const fanned = await drain('fanout');
        if (fanned.length !== 1) throw new Error(`bench: an edit queued ${fanned.length} fan-out messages, not 1`);
        updates.push(...fanned);
        const notified = await drain('notify');
        if (notified.length !== BOOSTERS) throw new Error(`bench: an edit queued ${notified.length} update notifications, not ${BOOSTERS}`);
        notifications.push(...notified);
        forgetOthers();
      }
      const history: { ms: number; calls: number }[] = [];
      const source: { ms: number; calls: number }[] = [];
      let versions = 0;
      for (let r = 0; r < READS; r++) {
        const h = await request(statusHistory, { method: 'GET', ...statusPath('/history'), token: author.token });
        versions = (JSON.parse(h.body) as unknown[]).length;
        history.push({ ms: h.ms, calls: h.dbCalls });
        const s = await request(statusSource, { method: 'GET', ...statusPath('/source'), token: author.token });
        source.push({ ms: s.ms, calls: s.dbCalls });
      }
      if (versions !== EDITS + 1) throw new Error(`bench: the history has ${versions} versions, not ${EDITS + 1}`);

      const label = `${n} followers, ${BOOSTERS} boosters`;
      rows.push({ step: `PUT /api/v1/statuses/:id (request) — ${label}`, runs: edits.length, ...summary(edits) });
      rows.push({ step: `  fan-out worker, update message — ${label}`, runs: updates.length, ...summary(updates) });
      rows.push({ step: `  notify worker, per booster — ${label}`, runs: notifications.length, ...summary(notifications) });
      rows.push({ step: `GET /api/v1/statuses/:id/history (${versions} versions)`, runs: history.length, ...summary(history) });
      rows.push({ step: 'GET /api/v1/statuses/:id/source', runs: source.length, ...summary(source) });
      process.stdout.write(`${label}: the post's fan-out took ${homeWrites.length} pages\n`);
    }
  } finally {
    await emulators.stop();
  }
  process.stdout.write(`\nEditing against dynalite (in-process handlers and workers; ${EDITS} edits in a row per size, ${READS} reads of the result):\n`);
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
