// Shared helpers for the benchmarks: timing, percentiles, and a fixture user on a running stack.

export type Sample = { ms: number; dbCalls: number; status: number };

export const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
};

export async function timed(request: () => Promise<Response>): Promise<Sample> {
  const started = performance.now();
  const res = await request();
  await res.arrayBuffer();
  const ms = performance.now() - started;
  return { ms, dbCalls: Number(res.headers.get('x-db-calls') ?? NaN), status: res.status };
}

export async function measure(name: string, count: number, request: () => Promise<Response>, warmup = 5) {
  for (let i = 0; i < warmup; i++) await timed(request);
  const samples: Sample[] = [];
  for (let i = 0; i < count; i++) samples.push(await timed(request));
  const bad = samples.filter((s) => s.status >= 400);
  if (bad.length > 0) throw new Error(`${name}: ${bad.length} requests failed (status ${bad[0]!.status})`);
  const ms = samples.map((s) => s.ms);
  const calls = [...new Set(samples.map((s) => s.dbCalls))].sort((a, b) => a - b);
  return {
    name,
    requests: count,
    p50_ms: Number(percentile(ms, 50).toFixed(1)),
    p99_ms: Number(percentile(ms, 99).toFixed(1)),
    dynamodb_calls: calls.join('/'),
  };
}

export async function json<T>(res: Promise<Response>): Promise<T> {
  const r = await res;
  const body = (await r.json()) as T;
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(body)}`);
  return body;
}

export async function fixtureUser(baseUrl: string) {
  const form = (o: Record<string, string>) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(o) });
  const app = await json<{ client_id: string; client_secret: string }>(
    fetch(`${baseUrl}/api/v1/apps`, form({ client_name: 'bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow' })),
  );
  const appToken = await json<{ access_token: string }>(
    fetch(`${baseUrl}/oauth/token`, form({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'read write' })),
  );
  const username = `bench${Date.now().toString(36)}`;
  const email = `${username}@example.com`;
  const password = 'benchmark passphrase 1';
  const registered = await json<{ access_token: string }>(
    fetch(`${baseUrl}/api/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${appToken.access_token}` },
      body: JSON.stringify({ username, email, password, agreement: true, locale: 'en' }),
    }),
  );
  return { app, username, email, password, token: registered.access_token, form };
}

/**
 * The load and profile benchmarks' world: a reader following an author, both with 30 posts
 * (home and public have full pages), the reader's posts favourited by the author (notifications
 * have a full page), and `spare` more of the author's statuses for the reader to favourite.
 * `targets` holds the reader's 30 statuses, then the spare ones.
 */
export async function seedWorld(baseUrl: string, spare: number) {
  const reader = await fixtureUser(baseUrl);
  const author = await fixtureUser(baseUrl);
  const as = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });
  const post = (token: string, status: string) =>
    json<{ id: string }>(fetch(`${baseUrl}/api/v1/statuses`, { method: 'POST', headers: as(token), body: JSON.stringify({ status }) }));
  const authorAccount = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, { headers: as(author.token) }));
  await json(fetch(`${baseUrl}/api/v1/accounts/${authorAccount.id}/follow`, { method: 'POST', headers: as(reader.token) }));
  const targets: string[] = [];
  for (let i = 0; i < 30; i++) {
    await post(author.token, `Author's status number ${i} about #loadbench and some words to render`);
    const own = await post(reader.token, `Reader's status number ${i}, a few words long, tagged #loadbench`);
    await json(fetch(`${baseUrl}/api/v1/statuses/${own.id}/favourite`, { method: 'POST', headers: as(author.token) }));
    targets.push(own.id);
  }
  for (let i = 0; i < spare; i++) targets.push((await post(author.token, `A status to favourite, ${i}`)).id);
  return { reader, author, targets, as };
}

/** Prints rows as an aligned text table. */
export function printTable(rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c]).length));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(width(columns[i]!)) : cell.padStart(width(columns[i]!)))).join('  ');
  process.stdout.write(`${line(columns)}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => String(r[c])))}\n`);
}

/**
 * Starts dynalite and s3rver in this process and points lib/ at them (for the
 * benchmarks that call lib/ directly). Import lib/ modules only after this.
 */
export async function inProcessEmulators() {
  const { freePort, startEmulators } = await import('../infra/local/emulators');
  const { LOCAL_CREDENTIALS } = await import('../infra/local/bootstrap');
  const emulators = await startEmulators({ dynamoPort: await freePort(), s3Port: await freePort() });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamoEndpoint,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    LOG_LEVEL: 'error',
    // Nothing runs without a stage (lib/config.ts); these emulators are this machine's.
    STAGE: process.env.STAGE || 'local',
  });
  return emulators;
}

/**
 * Runs a benchmark against the local stack: BENCH_URL when set (a running stack), else a stack it
 * starts with BENCH_STACK_ENV and stops at the end. A failure prints its stack and exits 1.
 */
export function benchOnStack(run: (baseUrl: string) => Promise<void>): void {
  const go = async () => {
    const { startStack } = await import('../test/support/stack');
    const stack = process.env.BENCH_URL ? undefined : await startStack({ env: BENCH_STACK_ENV });
    try {
      await run(process.env.BENCH_URL ?? stack!.baseUrl);
    } finally {
      await stack?.stop();
    }
  };
  go().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

/**
 * The benchmarks' stacks: a benchmark sends hundreds of requests a minute from one
 * address with one token, far past the rate limits a client meets (lib/http/ratelimit.ts),
 * which would answer 429s and measure those. Their counters still run and are measured: loopback is held to the
 * limits (RATE_LIMIT_LOOPBACK), as a deployed stage holds everyone.
 */
export const BENCH_STACK_ENV = { RATE_LIMIT_FACTOR: '1000', RATE_LIMIT_LOOPBACK: '1' };

/**
 * The federation benchmarks' world: emulators in this process, queues run inline, a fresh table named after
 * `name`, this server at https://bench.example, and outbound requests allowed to loopback (the benchmarks'
 * peers listen there). `env` adds or overrides settings. Import lib/ modules only after this.
 */
export async function federationBench(name: string, env: Record<string, string> = {}) {
  const emulators = await inProcessEmulators();
  const { randomBytes } = await import('node:crypto');
  const { ensureTable } = await import('../infra/local/bootstrap');
  Object.assign(process.env, {
    QUEUE_MODE: 'inline',
    STAGE: 'local',
    FEDERATION_ALLOW_PRIVATE: '1',
    BASE_URL: 'https://bench.example',
    SECRET_KEY_BASE: `bench-${randomBytes(8).toString('hex')}`,
    TABLE_NAME: `${name}-${randomBytes(3).toString('hex')}`,
    ...env,
  });
  await ensureTable(emulators.dynamoEndpoint, process.env.TABLE_NAME!);
  return emulators;
}
