// What the main requests cost in dollars, at AWS on-demand list prices (us-east-1, arm64, no free tier),
// from resource use measured in this process: the real handlers of functions/ called with API Gateway
// events, against dynalite and s3rver started here, with EXPOSE_METRICS=1 (capacity units as DynamoDB
// reports them, S3 requests, queue messages: lib/aws/index.ts, lib/http/index.ts). QUEUE_MODE is inline: the
// inline workers registered here keep each message they are sent, and the bench then hands every one to
// its real worker (functions/workers/) in an invocation of its own, one message per invocation, until the
// queues are empty: the fan-out pages, notifications, pushes and cards a request causes are part of its
// cost, each at the memory of the function that runs it. Prints
//  1. per million calls of each main endpoint (and a streaming minute): DynamoDB read and write units,
//     Lambda ms, queue messages, S3 requests, API Gateway requests, dollars and each service's share;
//  2. per active user per month, for the usage mix printed with it (MIX below).
// Usage: npm run bench:cost   (COST_FOLLOWERS=150,1000  COST_RUNS=12  COST_WARMUP=3 by default; COST_TRACE=1 lists the
// DynamoDB calls of each row's last run on stderr)
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent } from 'aws-lambda';
import sharp from 'sharp';
import { ensureBucket, ensureTable } from '../infra/local/bootstrap';
import { itemSize } from '../infra/local/item-size';
import { buildEvent, lambdaContext, type Call } from '../test/support/http';
import { multipart } from '../test/support/multipart';
import { inProcessEmulators, percentile, printTable } from './lib';

const FOLLOWERS = (process.env.COST_FOLLOWERS ?? '150,1000').split(',').map(Number);
const RUNS = Number(process.env.COST_RUNS ?? 12);
const WARMUP = Number(process.env.COST_WARMUP ?? 3);
/** Followers of the streaming measurement's author with an open `user` stream (the marginal cost of one event is the difference over them). */
const LISTENERS = 20;

// ---- prices: AWS list prices, us-east-1, on-demand, no free tier (as of November 2026) ----
const PRICES = {
  asOf: 'November 2026',
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  lambdaGbSecond: 0.0000133334, // arm64
  lambdaRequest: 0.2 / 1e6,
  httpApiRequest: 1.0 / 1e6, // per 512 KB
  wsMessage: 1.0 / 1e6, // per 32 KB
  wsConnectionMinute: 0.25 / 1e6,
  sqsRequest: 0.4 / 1e6, // standard queue, per 64 KB
  sqsRequestsPerMessage: 3, // a send, a receive and a delete
  s3Write: 0.005 / 1000, // PUT, COPY, POST, LIST
  s3Read: 0.0004 / 1000, // GET and the rest
  logsPerGb: 0.5, // CloudWatch Logs ingestion
};
/** What Lambda writes to CloudWatch for every invocation (START, END, REPORT lines), and CloudWatch's 26 bytes of metadata per event. */
const PLATFORM_LOG_BYTES = 290 + 3 * 26;
const LOG_EVENT_OVERHEAD = 26;

/**
 * The usage of one active user on one day. Each app start opens a stream (a WebSocket session) and
 * keeps it for the day's connected minutes shared between them.
 */
const MIX = {
  appStarts: 10, // each: verify_credentials + instance + home + notifications, and a streaming session
  morePages: { home: 35, notifications: 15, public: 5 },
  posts: 2, // to 150 followers, fanned out
  mediaUploads: 0.4, // one post in five carries a picture
  favourites: 10,
  streamingMinutes: 60,
  eventsPerMinute: 1, // events the stream receives while connected
  days: 30,
};
const MIX_FOLLOWERS = 150;

// ---- what one invocation used ----
type Invocation = {
  fn: string;
  memoryMb: number;
  ms: number;
  readUnits: number;
  writeUnits: number;
  /** Write units of the GSI1 index, which dynalite does not charge (added here from the writes, see gsiMeter). */
  gsiWriteUnits: number;
  messages: number;
  s3Writes: number;
  s3Reads: number;
  logBytes: number;
  /** WebSocket frames posted through the Management API, in 32 KB units. */
  wsFrames: number;
};
type Action = { invocations: Invocation[]; apiRequests: number; wsMessages: number; wsMinutes: number };

const blank = (fn: string, memoryMb: number): Invocation => ({
  fn, memoryMb, ms: 0, readUnits: 0, writeUnits: 0, gsiWriteUnits: 0, messages: 0, s3Writes: 0, s3Reads: 0, logBytes: 0, wsFrames: 0,
});

const TRACE = process.env.COST_TRACE === '1';
/** The bench's own notes, on the terminal's stderr (meterLogs counts what the code under test writes). */
const say = ((write) => (text: string) => write(text))(process.stderr.write.bind(process.stderr));
const trace: string[] = [];

/** The invocation running now: the bench runs one at a time, so the log, GSI and frame meters charge it. */
let current: (Invocation & { probeMs: number; probing: number; probeSince: number }) | undefined;

// ---- memory of each function, from functions/<group>/functions.yml (1024 MB unless it says otherwise) ----
function memoryByHandler(): Map<string, number> {
  const provider = Number(/^ {2}memorySize:\s*(\d+)/m.exec(readFileSync('serverless.yml', 'utf8'))?.[1] ?? 1024);
  const out = new Map<string, number>();
  for (const group of readdirSync('functions')) {
    const file = join('functions', group, 'functions.yml');
    if (!existsSync(file)) continue;
    let handler = '';
    let memory = provider;
    const flush = () => {
      if (handler) out.set(handler, memory);
      handler = '';
      memory = provider;
    };
    // By line, as bench/bundles.ts reads them: the files carry CloudFormation tags (!GetAtt).
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^[A-Za-z0-9]+:\s*$/.test(line)) flush();
      const h = /^\s+handler:\s*(\S+)\s*$/.exec(line);
      if (h) handler = h[1]!.replace(/\.[^.]+$/, '');
      const m = /^ {2}memorySize:\s*(\d+)/.exec(line);
      if (m) memory = Number(m[1]);
    }
    flush();
  }
  return out;
}

// ---- DynamoDB's item size (infra/local/item-size.ts), for the GSI writes dynalite leaves out ----
type Item = Record<string, Record<string, unknown>>;
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
/** An index write: one write unit per KB of the item (GSI1 projects every attribute). */
const indexUnits = (item: Item | undefined) => (item && item.GSI1PK ? Math.max(1, Math.ceil(itemSize(item) / 1024)) : 0);

/**
 * A loopback proxy in front of dynalite that adds the GSI1 write units of every write that took effect, as
 * DynamoDB charges them and dynalite does not: a put of an item carrying GSI1PK writes its index entry; an
 * update or delete of an item in the index rewrites or removes its entry (an update that moves its GSI1 key,
 * both); an update that gives an item GSI1PK adds one. Updates and deletes need the item as it stood: the
 * proxy reads it first, straight from dynalite, and the time of that read is taken off the invocation's.
 * A proxy rather than a client hook: it sees the wire protocol, whatever client lib/aws uses.
 */
async function gsiProxy(upstream: string): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const target = new URL(upstream);
  const forward = (headers: Record<string, string | string[] | undefined>, body: Buffer) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const sent = Object.fromEntries(Object.entries(headers).filter(([k, v]) => v !== undefined && k !== 'transfer-encoding')) as Record<string, string | string[]>;
      const req = httpRequest({ host: target.hostname, port: target.port, method: 'POST', path: '/', headers: { ...sent, host: target.host, 'content-length': String(body.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const before = async (headers: Record<string, string | string[] | undefined>, table: string, key: Item): Promise<Item | undefined> => {
    const c = current;
    if (c && c.probing++ === 0) c.probeSince = performance.now();
    try {
      const got = await forward({ ...headers, 'x-amz-target': 'DynamoDB_20120810.GetItem' }, Buffer.from(JSON.stringify({ TableName: table, Key: key, ConsistentRead: true })));
      return got.status === 200 ? (JSON.parse(got.body.toString('utf8')) as { Item?: Item }).Item : undefined;
    } finally {
      if (c && --c.probing === 0) c.probeMs += performance.now() - c.probeSince;
    }
  };
  const touchesGsiKey = (spec: { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> }) =>
    /GSI1(PK|SK)/.test(spec.UpdateExpression ?? '') || Object.values(spec.ExpressionAttributeNames ?? {}).some((n) => /^GSI1(PK|SK)$/.test(n));
  type Op = { kind: 'put'; item: Item } | { kind: 'update' | 'delete'; table: string; key: Item; spec: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const opsOf = (op: string, body: Record<string, any>): Op[] => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const ops: Op[] = [];
    if (op === 'PutItem') ops.push({ kind: 'put', item: body.Item });
    if (op === 'UpdateItem') ops.push({ kind: 'update', table: body.TableName, key: body.Key, spec: body });
    if (op === 'DeleteItem') ops.push({ kind: 'delete', table: body.TableName, key: body.Key, spec: body });
    if (op === 'BatchWriteItem') {
      for (const [table, requests] of Object.entries(body.RequestItems as Record<string, any[]>)) { // eslint-disable-line @typescript-eslint/no-explicit-any
        for (const r of requests) {
          if (r.PutRequest) ops.push({ kind: 'put', item: r.PutRequest.Item });
          else ops.push({ kind: 'delete', table, key: r.DeleteRequest.Key, spec: {} });
        }
      }
    }
    if (op === 'TransactWriteItems') {
      for (const t of body.TransactItems as Record<string, any>[]) { // eslint-disable-line @typescript-eslint/no-explicit-any
        if (t.Put) ops.push({ kind: 'put', item: t.Put.Item });
        if (t.Update) ops.push({ kind: 'update', table: t.Update.TableName, key: t.Update.Key, spec: t.Update });
        if (t.Delete) ops.push({ kind: 'delete', table: t.Delete.TableName, key: t.Delete.Key, spec: t.Delete });
      }
    }
    return ops;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const c = current;
        const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
        let ops: Op[] = [];
        let olds: (Item | undefined)[] = [];
        if (c && ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'].includes(op)) {
          ops = opsOf(op, JSON.parse(body.toString('utf8')));
          olds = await Promise.all(ops.map((o) => (o.kind === 'put' ? undefined : before(req.headers, o.table, o.key))));
        }
        const answer = await forward(req.headers, body);
        if (c && TRACE) {
          const input = JSON.parse(body.toString('utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
          const output = JSON.parse(answer.body.toString('utf8') || '{}') as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
          const units = [output.ConsumedCapacity].flat().reduce((n: number, x: { CapacityUnits?: number } | undefined) => n + (x?.CapacityUnits ?? 0), 0);
          const what = input.Key ? JSON.stringify(input.Key).slice(0, 90) : input.KeyConditionExpression ? `${input.IndexName ?? ''} ${JSON.stringify(input.ExpressionAttributeValues).slice(0, 90)} items=${output.Count}` : input.RequestItems ? `${Object.values(input.RequestItems as Record<string, { Keys?: unknown[] } | unknown[]>).map((r) => (Array.isArray(r) ? r.length : r.Keys?.length)).join('+')} items` : input.TransactItems ? `${input.TransactItems.length} items` : input.Item ? JSON.stringify({ PK: input.Item.PK, SK: input.Item.SK }) : '';
          trace.push(`${c.fn} ${op}${input.ConsistentRead ? ' (consistent)' : ''} ${what} -> ${units} units`);
        }
        // A write that failed (a condition, a cancelled transaction) wrote nothing and is charged nothing.
        if (c && answer.status === 200 && ops.length > 0) {
          const unprocessed = (JSON.parse(answer.body.toString('utf8')) as { UnprocessedItems?: Record<string, unknown[]> }).UnprocessedItems;
          if (unprocessed && Object.values(unprocessed).some((l) => l.length > 0)) say('bench: a batch write left unprocessed items (charged as written)\n');
          c.gsiWriteUnits += ops.reduce((n, o, i) => {
            const old = olds[i];
            if (o.kind === 'put') return n + indexUnits(o.item);
            if (o.kind === 'delete') return n + indexUnits(old);
            const moves = touchesGsiKey(o.spec);
            if (old?.GSI1PK) return n + indexUnits(old) * (moves ? 2 : 1);
            return n + (moves && old ? Math.max(1, Math.ceil(itemSize(old) / 1024)) : 0);
          }, 0);
        }
        res.writeHead(answer.status, answer.headers).end(answer.body);
      })().catch((err: unknown) => {
        say(`bench: dynamodb proxy: ${String(err)}\n`);
        res.writeHead(500).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

// ---- application log bytes: every line written while an invocation runs is counted (and kept off the terminal) ----
function meterLogs() {
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    (stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      if (!current) return original(chunk, ...rest);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      const lines = text.split('\n').filter((l) => l.length > 0);
      current.logBytes += utf8(text) + lines.length * LOG_EVENT_OVERHEAD;
      // An error is news: shown, as well as counted.
      if (text.includes('"level":"error"')) original(chunk, ...rest);
      return true;
    };
  }
}

/** The Management API of the WebSocket API, on loopback: answers every frame, and counts it (32 KB units) against the running invocation. */
function managementApi(): Promise<Server> {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      if (req.method === 'POST' && current) current.wsFrames += Math.max(1, Math.ceil(bytes / 32768));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- dollars ----
type Totals = {
  readUnits: number; writeUnits: number; gsiWriteUnits: number; lambdaMs: number; gbSeconds: number; lambdaRequests: number; messages: number;
  s3Writes: number; s3Reads: number; apiRequests: number; wsMessages: number; wsMinutes: number; logBytes: number;
};
const ZERO: Totals = { readUnits: 0, writeUnits: 0, gsiWriteUnits: 0, lambdaMs: 0, gbSeconds: 0, lambdaRequests: 0, messages: 0, s3Writes: 0, s3Reads: 0, apiRequests: 0, wsMessages: 0, wsMinutes: 0, logBytes: 0 };

function totalsOf(action: Action): Totals {
  const t = { ...ZERO, apiRequests: action.apiRequests, wsMessages: action.wsMessages, wsMinutes: action.wsMinutes };
  for (const inv of action.invocations) {
    // Lambda bills each invocation's duration rounded up to the millisecond.
    const ms = Math.ceil(inv.ms);
    t.readUnits += inv.readUnits;
    t.writeUnits += inv.writeUnits + inv.gsiWriteUnits;
    t.gsiWriteUnits += inv.gsiWriteUnits;
    t.lambdaMs += ms;
    t.gbSeconds += (ms / 1000) * (inv.memoryMb / 1024);
    t.lambdaRequests += 1;
    t.messages += inv.messages;
    t.s3Writes += inv.s3Writes;
    t.s3Reads += inv.s3Reads;
    t.wsMessages += inv.wsFrames;
    t.logBytes += inv.logBytes + PLATFORM_LOG_BYTES;
  }
  return t;
}
const add = (a: Totals, b: Totals, k = 1): Totals =>
  Object.fromEntries(Object.keys(ZERO).map((key) => [key, a[key as keyof Totals] + k * b[key as keyof Totals]])) as Totals;
/** Means of the counts over the runs; Lambda time (and GB-seconds) the median run's, which a GC pause or a busy neighbour does not move. */
function typical(runs: Totals[]): Totals {
  const mean = runs.reduce((a, r) => add(a, r, 1 / runs.length), { ...ZERO });
  return { ...mean, lambdaMs: percentile(runs.map((r) => r.lambdaMs), 50), gbSeconds: percentile(runs.map((r) => r.gbSeconds), 50) };
}

type Dollars = { dynamodb: number; lambda: number; apiGateway: number; sqs: number; s3: number; logs: number; total: number };
function dollars(t: Totals): Dollars {
  const d = {
    dynamodb: t.readUnits * PRICES.dynamoReadUnit + t.writeUnits * PRICES.dynamoWriteUnit,
    lambda: t.gbSeconds * PRICES.lambdaGbSecond + t.lambdaRequests * PRICES.lambdaRequest,
    apiGateway: t.apiRequests * PRICES.httpApiRequest + t.wsMessages * PRICES.wsMessage + t.wsMinutes * PRICES.wsConnectionMinute,
    sqs: t.messages * PRICES.sqsRequestsPerMessage * PRICES.sqsRequest,
    s3: t.s3Writes * PRICES.s3Write + t.s3Reads * PRICES.s3Read,
    logs: (t.logBytes / 1024 ** 3) * PRICES.logsPerGb,
    total: 0,
  };
  d.total = d.dynamodb + d.lambda + d.apiGateway + d.sqs + d.s3 + d.logs;
  return d;
}
const share = (part: number, whole: number) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '-');
/** At most `digits` decimals, none when they are zeros. */
const fixed = (n: number, digits = 1) => String(Number(n.toFixed(digits)));

function row(name: string, t: Totals): Record<string, string | number> {
  const d = dollars(t);
  return {
    'per call': name,
    'DDB RRU': fixed(t.readUnits),
    'DDB WRU': fixed(t.writeUnits),
    'of them GSI': fixed(t.gsiWriteUnits),
    'Lambda ms': fixed(t.lambdaMs, 0),
    invocations: fixed(t.lambdaRequests),
    'SQS msgs': fixed(t.messages),
    'S3 PUT/GET': `${fixed(t.s3Writes)}/${fixed(t.s3Reads)}`,
    'APIGW reqs': fixed(t.apiRequests + t.wsMessages) + (t.wsMinutes > 0 ? ` +${fixed(t.wsMinutes)} min` : ''),
    'log KB': (t.logBytes / 1024).toFixed(1),
    '$ per million': (d.total * 1e6).toFixed(2),
    DynamoDB: share(d.dynamodb, d.total),
    Lambda: share(d.lambda, d.total),
    APIGW: share(d.apiGateway, d.total),
    SQS: share(d.sqs, d.total),
    S3: share(d.s3, d.total),
    Logs: share(d.logs, d.total),
  };
}

type Handler = (event: any, context: Context) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function main() {
  const emulators = await inProcessEmulators();
  const management = await managementApi();
  const proxy = await gsiProxy(emulators.dynamoEndpoint);
  const suffix = randomBytes(3).toString('hex');
  Object.assign(process.env, {
    QUEUE_MODE: 'inline',
    STAGE: 'local',
    BASE_URL: 'https://bench.example',
    STREAMING_URL: `ws://127.0.0.1:${(management.address() as AddressInfo).port}`,
    SECRET_KEY_BASE: `bench-${randomBytes(8).toString('hex')}`,
    TABLE_NAME: `cost-${suffix}`,
    AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
    MEDIA_BUCKET: `media-cost-${suffix}`,
    AWS_ENDPOINT_URL_S3: emulators.s3Endpoint,
    MEDIA_URL: `${emulators.s3Endpoint}/media-cost-${suffix}`,
    RATE_LIMIT_FACTOR: '1000', // bench/lib.ts BENCH_STACK_ENV: the counters still run (and are paid for), nobody is refused
    EXPOSE_METRICS: '1',
    LOG_LEVEL: 'info', // as deployed (serverless.yml's logLevel): the log lines are part of the cost
  });
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  await ensureBucket(emulators.s3Endpoint, process.env.MEDIA_BUCKET!);

  // Imported after the environment points at the emulators.
  const { meterDb } = await import('../lib/aws');
  const { createAppInput, registerApp } = await import('../lib/apps');
  const { createLocalAccount } = await import('../lib/db/accounts');
  const { followRecord } = await import('../lib/db/follows');
  const { batchWrite } = await import('../lib/db/table');
  const { newId } = await import('../lib/ids');
  const { QUEUES, registerInlineWorker, workerFunction } = await import('../lib/queue');
  const { issueAccessToken } = await import('../lib/tokens');
  const handlers = {
    home: (await import('../functions/timelines/home')).handler,
    public: (await import('../functions/timelines/public')).handler,
    verifyCredentials: (await import('../functions/accounts/verify_credentials')).handler,
    instance: (await import('../functions/instance/show')).handler,
    notifications: (await import('../functions/notifications/index')).handler,
    createStatus: (await import('../functions/statuses/create')).handler,
    favourite: (await import('../functions/statuses/favourite')).handler,
    media: (await import('../functions/media/create')).handler,
    wsConnect: (await import('../functions/streaming/connect')).handler,
    wsMessage: (await import('../functions/streaming/message')).handler,
    wsDisconnect: (await import('../functions/streaming/disconnect')).handler,
  } as unknown as Record<string, Handler>;
  // The workers a request here can cause; the others (inbox, deliver, mail...) would mean a bench bug.
  const workerModules: Record<string, { file: string; load: () => Promise<{ handler: unknown }> }> = {
    fanout: { file: 'fanout', load: () => import('../functions/workers/fanout') },
    notify: { file: 'notify', load: () => import('../functions/workers/notify') },
    push: { file: 'push', load: () => import('../functions/workers/push') },
    cards: { file: 'cards', load: () => import('../functions/workers/cards') },
  };
  const workers = new Map<string, Handler>();
  for (const [queue, w] of Object.entries(workerModules)) workers.set(queue, (await w.load()).handler as Handler);

  const memory = memoryByHandler();
  const memoryOf = (file: string) => {
    const mb = memory.get(file);
    if (mb === undefined) throw new Error(`bench: no function in functions/*/functions.yml runs ${file}`);
    return mb;
  };
  const handlerFiles: Record<string, string> = {
    home: 'functions/timelines/home', public: 'functions/timelines/public', verifyCredentials: 'functions/accounts/verify_credentials',
    instance: 'functions/instance/show', notifications: 'functions/notifications/index', createStatus: 'functions/statuses/create',
    favourite: 'functions/statuses/favourite', media: 'functions/media/create', wsConnect: 'functions/streaming/connect',
    wsMessage: 'functions/streaming/message', wsDisconnect: 'functions/streaming/disconnect',
  };

  meterLogs();

  // Every queue keeps what it is sent, as SQS holds it for its worker.
  const queued: { queue: string; body: string }[] = [];
  for (const queue of QUEUES) {
    registerInlineWorker(queue, async (event: SQSEvent) => {
      for (const r of event.Records) queued.push({ queue, body: r.body });
      return { batchItemFailures: [] };
    });
  }

  /** Runs one invocation, metered: `http` invocations report their own meter in headers (lib/http), others are metered here. */
  const invoke = async <T>(fn: string, file: string, body: () => Promise<T>): Promise<{ inv: Invocation; out: T }> => {
    const inv = { ...blank(fn, memoryOf(file)), probeMs: 0, probing: 0, probeSince: 0 };
    const meter = { calls: 0, writes: 0 } as Parameters<typeof meterDb>[0];
    current = inv;
    const started = performance.now();
    let out: T;
    try {
      out = await meterDb(meter, body);
    } finally {
      inv.ms = performance.now() - started - inv.probeMs;
      current = undefined;
    }
    inv.readUnits += meter.readUnits ?? 0;
    inv.writeUnits += meter.writeUnits ?? 0;
    inv.messages += meter.messages ?? 0;
    inv.s3Writes += meter.s3Writes ?? 0;
    inv.s3Reads += meter.s3Reads ?? 0;
    const { probeMs: _p, probing: _q, probeSince: _s, ...plain } = inv;
    return { inv: plain, out };
  };

  /** Hands every queued message to its worker, one per invocation, until no queue holds any (what a request caused). */
  const drain = async (): Promise<Invocation[]> => {
    const out: Invocation[] = [];
    while (queued.length > 0) {
      const { queue, body } = queued.shift()!;
      const worker = workers.get(queue);
      if (!worker) throw new Error(`bench: no worker for queue ${queue}`);
      const { inv, out: res } = await invoke(workerFunction(queue as never), `functions/workers/${workerModules[queue]!.file}`, () =>
        worker({ Records: [{ messageId: newId(), receiptHandle: 'bench', body, attributes: { ApproximateReceiveCount: '1' }, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`, awsRegion: 'us-east-1' }] } as unknown as SQSEvent, lambdaContext()),
      );
      if ((res as { batchItemFailures?: unknown[] })?.batchItemFailures?.length) throw new Error(`bench: the ${queue} worker failed a message`);
      out.push(inv);
    }
    return out;
  };

  /** One HTTP API request through its handler, and everything it caused. */
  const request = async (name: keyof typeof handlerFiles, call: Call): Promise<{ action: Action; body: any }> => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const event = buildEvent(call) as APIGatewayProxyEventV2;
    const { inv, out } = await invoke(name, handlerFiles[name]!, () => handlers[name]!(event, lambdaContext()) as Promise<APIGatewayProxyStructuredResultV2>);
    const headers = Object.fromEntries(Object.entries(out.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    if ((out.statusCode ?? 200) >= 400) throw new Error(`bench: ${call.method ?? 'GET'} ${call.path} answered ${out.statusCode} ${out.body}`);
    // The handler's own meter (lib/http) holds its DynamoDB, S3 and queue figures; the bench's saw none of them.
    inv.readUnits = Number(headers['x-db-read-units']);
    inv.writeUnits = Number(headers['x-db-write-units']);
    inv.messages = Number(headers['x-queue-messages']);
    const [s3w, s3r] = (headers['x-s3-requests'] ?? '0/0').split('/').map(Number);
    inv.s3Writes = s3w!;
    inv.s3Reads = s3r!;
    const caused = await drain();
    // HTTP API meters requests in 512 KB units, request and answer each.
    const bytes = Math.max(Buffer.byteLength(event.body ?? ''), Buffer.byteLength(out.body ?? ''));
    const body = (headers['content-type'] ?? '').includes('json') ? JSON.parse(out.body ?? 'null') : out.body;
    return { action: { invocations: [inv, ...caused], apiRequests: Math.max(1, Math.ceil(bytes / (512 * 1024))), wsMessages: 0, wsMinutes: 0 }, body };
  };

  /** A WebSocket route through its handler: $connect and $disconnect are no messages; a client's message is one. */
  const websocketRoute = async (name: 'wsConnect' | 'wsMessage' | 'wsDisconnect', connectionId: string, extra: Record<string, unknown>) => {
    const routeKey = { wsConnect: '$connect', wsMessage: '$default', wsDisconnect: '$disconnect' }[name];
    const eventType = { wsConnect: 'CONNECT', wsMessage: 'MESSAGE', wsDisconnect: 'DISCONNECT' }[name];
    const { inv, out } = await invoke(name, handlerFiles[name]!, () =>
      handlers[name]!({ requestContext: { connectionId, routeKey, eventType, requestId: newId() }, headers: { Host: 'bench.example' }, isBase64Encoded: false, ...extra }, lambdaContext()),
    );
    if (out.statusCode !== 200) throw new Error(`bench: ${routeKey} answered ${out.statusCode} ${out.body}`);
    const caused = await drain();
    return { invocations: [inv, ...caused], apiRequests: 0, wsMessages: name === 'wsMessage' ? 1 : 0, wsMinutes: 0 } satisfies Action;
  };

  /** What the proxy adds to a call: GetItems straight to dynalite against through the proxy, alternately. */
  let hop = 0;
  const proxyHop = async () => {
    const get = async (endpoint: string) => {
      const started = performance.now();
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem', authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' },
        body: JSON.stringify({ TableName: process.env.TABLE_NAME, Key: { PK: { S: 'INSTANCE' }, SK: { S: 'STATS' } } }),
      });
      await res.arrayBuffer();
      return performance.now() - started;
    };
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < 300; i++) {
      direct.push(await get(emulators.dynamoEndpoint));
      proxied.push(await get(proxy.endpoint));
    }
    return Math.max(0, percentile(proxied, 50) - percentile(direct, 50));
  };

  const rows: Record<string, string | number>[] = [];
  const perCall = new Map<string, Totals>();
  /** Runs `once` WARMUP times unmeasured, then RUNS times, and keeps the typical totals. */
  const measure = async (name: string, once: (i: number) => Promise<Action>) => {
    for (let i = 0; i < WARMUP; i++) await once(i);
    const runs: Totals[] = [];
    for (let i = 0; i < RUNS; i++) {
      trace.length = 0;
      runs.push(totalsOf(await once(WARMUP + i)));
    }
    if (TRACE) say(`--- ${name}, the last run's DynamoDB calls:\n${trace.join('\n')}\n`);
    const t = typical(runs);
    perCall.set(name, t);
    rows.push(row(name, t));
    say(`measured ${name}\n`);
    return t;
  };

  try {
    // ---- the world: a reader following 20 authors with 3 statuses each, whose 40 statuses they favourited ----
    say('seeding...\n');
    const { app } = await registerApp(createAppInput.parse({ client_name: 'cost bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow push' }));
    let seq = 0;
    const account = async (withToken: boolean) => {
      const username = `c${suffix}${(seq++).toString(36)}`;
      const created = await createLocalAccount({ id: newId(), username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString(), approved: true });
      if (!created.ok) throw new Error(`bench: could not create ${username}`);
      const token = withToken ? (await issueAccessToken(app, created.account.id, ['read', 'write', 'follow', 'push'])).raw : '';
      return { account: created.account, token };
    };
    const follow = async (followers: string[], followedId: string) => {
      const now = new Date().toISOString();
      const records = followers.map((followerId) => followRecord({ id: newId(), followerId, followedId, showReblogs: true, notify: false, createdAt: now }));
      for (let i = 0; i < records.length; i += 25) await batchWrite(records.slice(i, i + 25));
    };
    const words = ['harbour', 'lantern', 'orchard', 'pebble', 'meadow', 'quartz', 'saffron', 'thistle', 'willow', 'ember', 'granite', 'juniper'];
    const sentence = (i: number) => `${Array.from({ length: 9 }, (_, k) => words[(i * 7 + k * 5) % words.length]).join(' ')} #costbench`;
    const post = (token: string, i: number, extra: Record<string, unknown> = {}) =>
      request('createStatus', { method: 'POST', path: '/api/v1/statuses', token, json: { status: sentence(i), visibility: 'public', ...extra } });

    const reader = await account(true);
    const authors = await Promise.all(Array.from({ length: 20 }, () => account(true)));
    for (const a of authors) await follow([reader.account.id], a.account.id);
    const readerStatuses: string[] = [];
    for (let i = 0; i < 40; i++) readerStatuses.push((await post(reader.token, i)).body.id);
    for (let round = 0; round < 3; round++) for (const [k, a] of authors.entries()) await post(a.token, round * 20 + k);
    for (const [i, id] of readerStatuses.entries()) {
      const by = authors[i % authors.length]!;
      await request('favourite', { method: 'POST', path: `/api/v1/statuses/${id}/favourite`, pathParameters: { id }, token: by.token });
    }
    // Statuses for the reader to favourite in the measured runs (one each).
    const favouriteTargets: string[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) favouriteTargets.push((await post(authors[i % authors.length]!.token, 100 + i)).body.id);

    const reading = { token: reader.token };
    await measure('GET /api/v1/timelines/home', async () => (await request('home', { path: '/api/v1/timelines/home', ...reading })).action);
    await measure('GET /api/v1/timelines/public?limit=20', async () => (await request('public', { path: '/api/v1/timelines/public', query: { limit: '20' }, ...reading })).action);
    await measure('GET /api/v1/accounts/verify_credentials', async () => (await request('verifyCredentials', { path: '/api/v1/accounts/verify_credentials', ...reading })).action);
    await measure('GET /api/v1/instance', async () => (await request('instance', { path: '/api/v1/instance', ...reading })).action);
    await measure('GET /api/v1/notifications', async () => (await request('notifications', { path: '/api/v1/notifications', ...reading })).action);

    // ---- posting, by an author with N local followers (accounts of their own), fan-out included ----
    const posters = new Map<number, { token: string; followers: { account: { id: string }; token: string }[] }>();
    for (const n of FOLLOWERS) {
      say(`seeding an author with ${n} followers...\n`);
      const poster = await account(true);
      const followers: { account: { id: string }; token: string }[] = [];
      for (let i = 0; i < n; i += 10) followers.push(...(await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => account(i + k < LISTENERS)))));
      await follow(followers.map((f) => f.account.id), poster.account.id);
      posters.set(n, { token: poster.token, followers });
      await measure(`POST /api/v1/statuses (${n.toLocaleString('en')} followers)`, async (i) => (await post(poster.token, 200 + i)).action);
    }
    await measure('POST /api/v1/statuses/:id/favourite', async (i) => {
      const id = favouriteTargets[i]!;
      return (await request('favourite', { method: 'POST', path: `/api/v1/statuses/${id}/favourite`, pathParameters: { id }, token: reader.token })).action;
    });

    // ---- media: a 640×480 photograph-like JPEG (noise compresses as a photo does), processed at once (v1) ----
    const pixels = Buffer.alloc(640 * 480 * 3);
    for (let i = 0; i < pixels.length; i++) pixels[i] = (Math.sin(i / 900) * 60 + 128 + ((i * 2654435761) % 97)) & 0xff;
    const jpeg = await sharp(pixels, { raw: { width: 640, height: 480, channels: 3 } }).jpeg({ quality: 80 }).toBuffer();
    const mediaName = `POST /api/v1/media (${Math.round(jpeg.length / 1024)} KB JPEG, 640×480)`;
    await measure(mediaName, async () => {
      const form = await multipart({ file: { data: jpeg, filename: 'photo.jpg', type: 'image/jpeg' }, description: 'a bench picture' });
      return (await request('media', { method: 'POST', path: '/api/v1/media', body: form, token: reader.token })).action;
    });

    // ---- streaming ----
    // A session: $connect (user stream), one subscribe message, $disconnect.
    const sessionMinutes = MIX.streamingMinutes / MIX.appStarts;
    const session = await measure('  streaming session (connect, 1 subscribe, disconnect)', async () => {
      const connectionId = `${randomBytes(7).toString('hex')}=`;
      const parts = [
        await websocketRoute('wsConnect', connectionId, { queryStringParameters: { access_token: reader.token, stream: 'user' } }),
        await websocketRoute('wsMessage', connectionId, { body: JSON.stringify({ type: 'subscribe', stream: 'public:local' }) }),
        await websocketRoute('wsDisconnect', connectionId, {}),
      ];
      return { invocations: parts.flatMap((p) => p.invocations), apiRequests: 0, wsMessages: parts.reduce((n, p) => n + p.wsMessages, 0), wsMinutes: 0 };
    });
    // One event received: what a post's fan-out spends more when LISTENERS of its followers listen on their user stream,
    // per listener (the ONLINE read of the page is paid whether anyone listens or not).
    const streamer = posters.get(FOLLOWERS[0]!)!;
    const quiet = perCall.get(`POST /api/v1/statuses (${FOLLOWERS[0]!.toLocaleString('en')} followers)`)!;
    const listening = Math.min(LISTENERS, streamer.followers.length);
    const connections: string[] = [];
    for (const f of streamer.followers.slice(0, listening)) {
      const connectionId = `${randomBytes(7).toString('hex')}=`;
      await websocketRoute('wsConnect', connectionId, { queryStringParameters: { access_token: f.token, stream: 'user' } });
      connections.push(connectionId);
    }
    const heard = await measure(`  POST /api/v1/statuses (${FOLLOWERS[0]!.toLocaleString('en')} followers, ${listening} listening)`, async (i) => (await post(streamer.token, 400 + i)).action);
    for (const connectionId of connections) await websocketRoute('wsDisconnect', connectionId, {});
    const perEvent = add(heard, quiet, -1);
    for (const k of Object.keys(perEvent) as (keyof Totals)[]) perEvent[k] = Math.max(0, perEvent[k] / listening);
    // The Lambda request count does not change with listeners.
    perEvent.lambdaRequests = 0;
    rows.push(row('  one streamed event (per listener)', perEvent));
    const minute = add(add({ ...ZERO, wsMinutes: 1 }, session, 1 / sessionMinutes), perEvent, MIX.eventsPerMinute);
    perCall.set('streaming minute', minute);
    rows.push(row(`streaming minute (${fixed(sessionMinutes)}-min sessions, ${MIX.eventsPerMinute} event/min)`, minute));
    hop = await proxyHop();
  } finally {
    await proxy.close();
    await emulators.stop();
    management.closeAllConnections();
    await new Promise<void>((resolve) => management.close(() => resolve()));
  }

  // ---- output ----
  const out = (s: string) => process.stdout.write(s);
  out(`\nWhat the main requests cost, per million calls, at AWS list prices (us-east-1, arm64, on-demand, no free tier, ${PRICES.asOf}).\n`);
  out(`Measured in-process against dynalite and s3rver: ${RUNS} runs after ${WARMUP} warm-up runs each; counts are means, Lambda ms the median run's.\n`);
  out('Each request is one invocation; every queue message it causes is handed to its worker in an invocation of its own (SQS batch size 1,\n');
  out('an upper bound on invocations), and those invocations are part of the row. Lambda ms: the sum over them, each rounded up to the ms.\n\n');
  printTable(rows);
  out('\nDDB WRU include GSI1 index writes ("of them GSI": dynalite does not charge them; added from the writes, 1 unit per KB of item).\n');
  out(`The loopback proxy that finds them adds about ${hop.toFixed(2)} ms to each DynamoDB call (measured now), left in the Lambda ms.\n`);
  out('APIGW reqs: HTTP API requests (512 KB units) and WebSocket messages (32 KB units); "+1 min" a WebSocket connection-minute.\n');
  out(`SQS: ${PRICES.sqsRequestsPerMessage} requests per message (send, receive, delete). Logs: application lines at LOG_LEVEL=info, plus ${PLATFORM_LOG_BYTES} bytes of\n`);
  out('START/END/REPORT lines per invocation, with CloudWatch\'s 26 bytes per event.\n');

  // Per active user per month.
  const get = (name: string) => {
    const t = [...perCall.entries()].find(([k]) => k === name || k.startsWith(name))?.[1];
    if (!t) throw new Error(`bench: nothing measured as ${name}`);
    return t;
  };
  const postName = `POST /api/v1/statuses (${MIX_FOLLOWERS.toLocaleString('en')} followers)`;
  const mixRows: [string, number, Totals][] = [
    ['GET /api/v1/accounts/verify_credentials', MIX.appStarts, get('GET /api/v1/accounts/verify_credentials')],
    ['GET /api/v1/instance', MIX.appStarts, get('GET /api/v1/instance')],
    ['GET /api/v1/timelines/home', MIX.appStarts + MIX.morePages.home, get('GET /api/v1/timelines/home')],
    ['GET /api/v1/notifications', MIX.appStarts + MIX.morePages.notifications, get('GET /api/v1/notifications')],
    ['GET /api/v1/timelines/public?limit=20', MIX.morePages.public, get('GET /api/v1/timelines/public')],
    [postName, MIX.posts, perCall.has(postName) ? get(postName) : get('POST /api/v1/statuses (')],
    ['POST /api/v1/media', MIX.mediaUploads, get('POST /api/v1/media')],
    ['POST /api/v1/statuses/:id/favourite', MIX.favourites, get('POST /api/v1/statuses/:id/favourite')],
    ['streaming minute', MIX.streamingMinutes, get('streaming minute')],
  ];
  let month = { ...ZERO };
  const monthRows = mixRows.map(([name, perDay, t]) => {
    const m = add({ ...ZERO }, t, perDay * MIX.days);
    month = add(month, m);
    return { action: name, 'per day': fixed(perDay), 'per month': fixed(perDay * MIX.days), '$ per user-month': dollars(m).total.toFixed(5) };
  });
  const d = dollars(month);
  monthRows.push({ action: 'total', 'per day': '', 'per month': '', '$ per user-month': d.total.toFixed(5) });
  out(`\nPer active user per month (${MIX.days} days), for this mix per day: ${MIX.appStarts} app starts, each calling verify_credentials, instance, home and\n`);
  out(`notifications and opening a streaming session; ${MIX.morePages.home} more home pages, ${MIX.morePages.notifications} more notification pages, ${MIX.morePages.public} public pages; ${MIX.posts} posts to ${MIX_FOLLOWERS} followers\n`);
  out(`(fanned out), a picture uploaded with ${MIX.mediaUploads * 100 / MIX.posts}% of them; ${MIX.favourites} favourites; ${MIX.streamingMinutes} minutes connected to streaming receiving ${MIX.eventsPerMinute} event a minute.\n\n`);
  printTable(monthRows);
  out('\n');
  printTable([{
    'per user-month': 'by service',
    DynamoDB: `$${d.dynamodb.toFixed(5)} (${share(d.dynamodb, d.total)})`,
    Lambda: `$${d.lambda.toFixed(5)} (${share(d.lambda, d.total)})`,
    'API Gateway': `$${d.apiGateway.toFixed(5)} (${share(d.apiGateway, d.total)})`,
    SQS: `$${d.sqs.toFixed(5)} (${share(d.sqs, d.total)})`,
    S3: `$${d.s3.toFixed(5)} (${share(d.s3, d.total)})`,
    Logs: `$${d.logs.toFixed(5)} (${share(d.logs, d.total)})`,
    total: `$${d.total.toFixed(4)}`,
  }]);
  out(`\nThat is $${(d.total * 1000).toFixed(2)} a month per 1,000 active users.\n`);
  out(`\nPrices (${PRICES.asOf}): DynamoDB on-demand $0.625 per million write units, $0.125 per million read units; Lambda arm64 $0.0000133334 per GB-s,\n`);
  out('$0.20 per million requests; HTTP API $1.00 per million requests; WebSocket $1.00 per million messages, $0.25 per million connection-minutes;\n');
  out('SQS standard $0.40 per million requests; S3 $0.005 per 1,000 PUT/COPY/POST/LIST, $0.0004 per 1,000 GET; CloudWatch Logs $0.50 per GB ingested.\n');
  out('Not counted: DynamoDB and S3 storage, data transfer out, media served to clients (S3 GETs), the queues\' idle polling, alarms, cold starts\n');
  out('(init time); Lambda time measured here against dynalite, whose latency differs from DynamoDB\'s (single-digit ms), on a shared machine.\n');
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
