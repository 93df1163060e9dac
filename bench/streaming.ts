// Streaming delivery latency on the local stack: from sending POST /api/v1/statuses
// to each listener's WebSocket receiving the `update` frame, with 1 and with 100
// listeners that follow the author and listen on their `user` stream.
// The path measured: the POST, the fan-out worker invocation (the queue adapter),
// the online-accounts read, one channel Query per listener, the shared rendering,
// one batch read of the listeners' flags, their filters, and postToConnection.
// Usage: npm run bench:streaming   (starts its own local stack; BENCH_URL uses a running one)
import WebSocket from 'ws';
import { benchOnStack, fixtureUser, json, percentile, printTable } from './lib';

const POSTS = Number(process.env.BENCH_COUNT ?? 50);
const LISTENER_COUNTS = (process.env.BENCH_LISTENERS ?? '1,100').split(',').map(Number);
const WARMUP = 3;

type Listener = { ws: WebSocket; arrivals: Map<string, number> };

const auth = (token: string, body?: unknown) => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** A `user` stream as masto opens it: the token as the WebSocket subprotocol. */
function listen(wsUrl: string, token: string): Promise<Listener> {
  const arrivals = new Map<string, number>();
  const ws = new WebSocket(`${wsUrl}/api/v1/streaming?stream=user`, [token]);
  ws.on('message', (data) => {
    const at = performance.now();
    const frame = JSON.parse(String(data)) as { event?: string; payload?: string };
    if (frame.event !== 'update' || !frame.payload) return;
    arrivals.set((JSON.parse(frame.payload) as { id: string }).id, at);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, arrivals }));
    ws.once('error', reject);
  });
}

async function waitFor(probe: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function scenario(baseUrl: string, wsUrl: string, listenerCount: number) {
  const author = await fixtureUser(baseUrl);
  const authorId = (await json<{ id: string }>(fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, auth(author.token)))).id;
  const listeners: Listener[] = [];
  for (let i = 0; i < listenerCount; i++) {
    // Registration hashes a password (argon2): one at a time, so usernames (a clock in base 36) differ too.
    const follower = await fixtureUser(baseUrl);
    await json(fetch(`${baseUrl}/api/v1/accounts/${authorId}/follow`, auth(follower.token, {})));
    listeners.push(await listen(wsUrl, follower.token));
  }
  const post = async (i: number) => {
    const started = performance.now();
    const status = await json<{ id: string }>(fetch(`${baseUrl}/api/v1/statuses`, auth(author.token, { status: `streamed ${i}`, visibility: 'public' })));
    await waitFor(() => listeners.every((l) => l.arrivals.has(status.id)), `status ${i} on every stream`);
    return listeners.map((l) => l.arrivals.get(status.id)! - started);
  };
  for (let i = 0; i < WARMUP; i++) await post(-1 - i);
  const all: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    const latencies = await post(i);
    all.push(...latencies);
    last.push(Math.max(...latencies));
  }
  for (const l of listeners) l.ws.close();
  return {
    listeners: listenerCount,
    posts: POSTS,
    p50_ms: Number(percentile(all, 50).toFixed(1)),
    p99_ms: Number(percentile(all, 99).toFixed(1)),
    last_listener_p50_ms: Number(percentile(last, 50).toFixed(1)),
    last_listener_p99_ms: Number(percentile(last, 99).toFixed(1)),
  };
}

benchOnStack(async (baseUrl) => {
  const instance = await json<{ urls: { streaming_api: string } }>(fetch(`${baseUrl}/api/v1/instance`));
  const wsUrl = instance.urls.streaming_api.replace(/\/+$/, '');
  const rows = [];
  for (const n of LISTENER_COUNTS) rows.push(await scenario(baseUrl, wsUrl, n));
  process.stdout.write(`\nStreaming delivery latency, POST /api/v1/statuses to the WebSocket update frame (${POSTS} posts each, after ${WARMUP} warm-up posts):\n`);
  printTable(rows);
});
