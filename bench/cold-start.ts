// Cold start of every function: its deployed bundle (bench/bundles.ts) imported in a fresh
// Node process, then its handler called once; prints import time, first-response time and
// their sum, slowest ten first, and the spread over all functions. An HTTP function gets a
// request for its route without a token (what it answers then: 401 after the rate-limit
// count, or the public answer), a worker an empty batch, a WebSocket function a connect
// event without a token. The table is dynalite in this process, as on the local stack.
// Usage: npm run bench:cold-start        COLD_ONLY=verifyCredentials,homeTimeline
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildFunction, functionsFromGroups } from './bundles';
import { percentile, printTable } from './lib';

const ONLY = process.env.COLD_ONLY?.split(',');
const dir = resolve('.esbuild', `cold-start-${process.pid}`);

/** The first event each kind of function gets, from its functions.yml declaration. */
function eventsByFunction(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const group of new Set([...functionsFromGroups().values()].map((f) => f.split('/')[1]!))) {
    let current = '';
    for (const line of readFileSync(join('functions', group, 'functions.yml'), 'utf8').split('\n')) {
      const name = /^([A-Za-z0-9]+):\s*$/.exec(line);
      if (name) current = name[1]!;
      const route = /^\s+- httpApi:\s*'?(\w+) ([^']+)'?\s*$/.exec(line);
      if (route && current && !out.has(current)) out.set(current, httpEvent(route[1]!, route[2]!.replace(/\{[^}]+\}/g, '1')));
      if (/^\s+- (sqs|schedule|stream):/.test(line) && current && !out.has(current)) out.set(current, { Records: [] });
      if (/^\s+- websocket:/.test(line) && current && !out.has(current)) out.set(current, wsEvent());
    }
  }
  return out;
}

function httpEvent(method: string, path: string) {
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'bench.example', 'user-agent': 'cold-start' },
    requestContext: { http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'cold-start' }, requestId: `cold-${now}`, routeKey: `${method} ${path}`, stage: '$default', time: new Date(now).toISOString(), timeEpoch: now },
    isBase64Encoded: false,
  };
}

const wsEvent = () => ({ requestContext: { routeKey: '$connect', eventType: 'CONNECT', connectionId: 'cold', requestId: 'cold', domainName: 'bench.example', stage: 'local' }, headers: {}, queryStringParameters: {}, isBase64Encoded: false });

// Runs in the fresh process: import, then one invocation. Response-streaming functions get the
// runtime's `awslambda` globals, as stream-worker.ts gives them on the local stack.
const RUNNER = `
import { Writable } from 'node:stream';
globalThis.awslambda = {
  streamifyResponse: (fn) => fn,
  HttpResponseStream: { from: (stream) => stream },
};
const [bundle, eventJson] = process.argv.slice(2);
const t0 = performance.now();
const mod = await import(bundle);
const t1 = performance.now();
const context = { awsRequestId: 'cold', functionName: 'cold', getRemainingTimeInMillis: () => 29000, callbackWaitsForEmptyEventLoop: false };
const sink = new Writable({ write(_c, _e, done) { done(); } });
sink.setContentType = () => {};
const event = JSON.parse(eventJson);
const handler = mod.handler;
const out = handler.length >= 3 ? handler(event, sink, context) : handler(event, context);
const answer = await Promise.race([out, new Promise((r) => setTimeout(() => r({ statusCode: 'streaming' }), 3000))]);
const t2 = performance.now();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, status: answer?.statusCode ?? (answer?.batchItemFailures ? 'batch' : typeof answer) }));
process.exit(0);
`;

/**
 * Runs the bundle in a fresh process. Not spawnSync: the emulators run in this process,
 * and a blocked event loop here would leave every table call of the child unanswered
 * (each first call then waited out the runner's 3 s cap).
 */
function runFresh(runner: string, outfile: string, event: string): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, outfile, event], { env: process.env, timeout: 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (status) => resolve({ stdout, stderr, status }));
  });
}

async function main() {
  const { inProcessEmulators } = await import('./lib');
  const emulators = await inProcessEmulators();
  const { ensureTable } = await import('../infra/local/bootstrap');
  Object.assign(process.env, {
    STAGE: 'local',
    TABLE_NAME: `cold-start-${process.pid}`,
    MEDIA_BUCKET: 'cold-start',
    BASE_URL: 'https://bench.example',
    STREAMING_URL: 'wss://bench.example',
    QUEUE_MODE: 'inline',
    SECRET_KEY_BASE: 'cold-start-bench-secret',
    NODE_OPTIONS: '',
  });
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  mkdirSync(dir, { recursive: true });
  const runner = join(dir, 'run.mjs');
  writeFileSync(runner, RUNNER);
  const events = eventsByFunction();
  const rows: { fn: string; importMs: number; firstMs: number; status: string }[] = [];
  try {
    for (const [name, entry] of functionsFromGroups()) {
      if (ONLY && !ONLY.includes(name)) continue;
      const outfile = join(dir, `${name}.mjs`);
      await buildFunction(entry, outfile);
      const event = events.get(name) ?? {};
      const run = await runFresh(runner, outfile, JSON.stringify(event));
      try {
        const r = JSON.parse(run.stdout) as { importMs: number; firstMs: number; status: unknown };
        rows.push({ fn: name, importMs: r.importMs, firstMs: r.firstMs, status: String(r.status) });
      } catch {
        rows.push({ fn: name, importMs: NaN, firstMs: NaN, status: `failed: ${(run.stderr || run.stdout).split('\n').find((l) => l.trim()) ?? run.status}` });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await emulators.stop();
  }
  const total = (r: (typeof rows)[number]) => r.importMs + r.firstMs;
  rows.sort((a, b) => total(b) - total(a));
  process.stdout.write('Slowest ten (import, then the first invocation, in a fresh process):\n');
  printTable(rows.slice(0, 10).map((r) => ({ function: r.fn, 'import ms': r.importMs.toFixed(1), 'first call ms': r.firstMs.toFixed(1), 'total ms': total(r).toFixed(1), answer: r.status })));
  const totals = rows.map(total).filter((x) => !Number.isNaN(x));
  const failed = rows.filter((r) => r.status.startsWith('failed'));
  process.stdout.write(
    `\n${rows.length} functions: import-to-first-response p50 ${percentile(totals, 50).toFixed(0)} ms, p90 ${percentile(totals, 90).toFixed(0)} ms, max ${percentile(totals, 100).toFixed(0)} ms` +
      `; import alone p50 ${percentile(rows.map((r) => r.importMs), 50).toFixed(0)} ms\n`,
  );
  for (const f of failed) process.stdout.write(`${f.fn}: ${f.status}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
