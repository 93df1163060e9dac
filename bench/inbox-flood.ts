// The API during a flood of unverifiable inbox POSTs: GET /api/v1/timelines/public (a page of 20 statuses) and
// GET /api/v1/instance, p50/p99, alone and then while POST /inbox is flooded at FLOOD_RATE requests a second for
// FLOOD_SECONDS. Every flood request is signed with a fresh key whose keyId points at a server that accepts the
// connection and never answers (a blackhole): half of them at one host, half at a new host each (names that resolve
// to the blackhole), each from a new address (an attacker with many, so no per-address budget helps), each keyId on
// its actor's host (so that check does not refuse it either). Also: how long each flood request held its handler
// (p50/p99/max), and how many connections reached the blackhole.
//
// In this process, against dynalite: the API and the flood share one event loop and one emulator, so the ratio
// shows what a flood request costs the process (CPU, table calls, sockets); in AWS each function has its own
// containers and the inbox's reserved concurrency caps the flood's share (serverless.yml). Runs on any commit:
// `git stash` the fix to measure before.
// Usage: npm run bench:inbox-flood      (FLOOD_RATE=100, FLOOD_SECONDS=15, API_REQUESTS=300)
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import net from 'node:net';
import { federationBench, percentile, printTable } from './lib';

const FLOOD_RATE = Number(process.env.FLOOD_RATE ?? 100);
const FLOOD_SECONDS = Number(process.env.FLOOD_SECONDS ?? 15);
const API_REQUESTS = Number(process.env.API_REQUESTS ?? 300);

async function main() {
  const emulators = await federationBench('inbox-flood', { EXPOSE_METRICS: '1' });
  const { useResolver } = await import('../lib/net');
  const { signRequest } = await import('../lib/federation/signatures');
  const { handler: inbox } = await import('../functions/activitypub/inbox');
  const { handler: publicTimeline } = await import('../functions/timelines/public');
  const { handler: instance } = await import('../functions/instance/show');
  const { handler: postStatus } = await import('../functions/statuses/create');
  const { call } = await import('../test/support/http');
  const { aUser } = await import('../test/support/factories');
  const { registerInlineWorker } = await import('../lib/queue');
  for (const queue of ['fanout', 'notify', 'deliver', 'inbox', 'cards', 'remoteMedia'] as const) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));

  // The blackhole: takes every connection, answers nothing, closes nothing.
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const blackhole = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const port = (blackhole.address() as net.AddressInfo).port;
  useResolver(async (name) => (name.endsWith('.flood.test') ? ['127.0.0.1'] : []));

  // The API's world: a user and 20 public statuses.
  const user = await aUser({ username: 'reader' });
  for (let i = 0; i < 20; i++) {
    await call(postStatus, { method: 'POST', path: '/api/v1/statuses', token: user.token, json: { status: `status ${i}`, visibility: 'public' } });
  }

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  let n = 0;
  const floodRequest = () => {
    n++;
    const host = n % 2 === 0 ? `slow.flood.test:${port}` : `r${randomBytes(6).toString('hex')}.flood.test:${port}`;
    const actor = `http://${host}/users/u${n}`;
    const body = JSON.stringify({ id: `${actor}#follow/${n}`, type: 'Follow', actor, object: 'https://bench.example/users/reader' });
    const headers = signRequest({ method: 'POST', url: 'https://bench.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, { keyId: `${actor}#main-key`, privateKeyPem: privateKey });
    const sourceIp = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    return call(inbox, { method: 'POST', path: '/inbox', headers: { ...headers, host: 'bench.example' }, body: { data: body, contentType: 'application/activity+json' }, sourceIp });
  };

  const apiSamples = async (count: number) => {
    const ms: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await (i % 2 === 0
        ? call(publicTimeline, { method: 'GET', path: '/api/v1/timelines/public', sourceIp: '192.0.2.1' })
        : call(instance, { method: 'GET', path: '/api/v1/instance', sourceIp: '192.0.2.1' }));
      if (res.status !== 200) throw new Error(`API answered ${res.status}: ${res.text}`);
      ms.push(performance.now() - started);
    }
    return ms;
  };

  process.env.RATE_LIMIT_FACTOR = '1000'; // the reader's own requests are not what is measured
  await apiSamples(20);
  const before = await apiSamples(API_REQUESTS);

  // The flood, open-loop: FLOOD_RATE a second, each request timed to its answer.
  const held: number[] = [];
  const dbCalls: number[] = [];
  const statuses = new Map<number, number>();
  const inFlight = new Set<Promise<unknown>>();
  let flooding = true;
  const flood = (async () => {
    const started = performance.now();
    let sent = 0;
    while (flooding && performance.now() - started < FLOOD_SECONDS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * FLOOD_RATE);
      for (; sent < due; sent++) {
        const t = performance.now();
        const p = floodRequest().then((res) => {
          held.push(performance.now() - t);
          dbCalls.push(Number(res.headers['x-db-calls'] ?? NaN));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  // Let the flood build up before measuring.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const during = await apiSamples(API_REQUESTS);
  flooding = false;
  await flood;
  await Promise.allSettled([...inFlight]);

  const row = (name: string, ms: number[]) => ({ name, requests: ms.length, p50_ms: Number(percentile(ms, 50).toFixed(1)), p99_ms: Number(percentile(ms, 99).toFixed(1)), max_ms: Number(Math.max(...ms).toFixed(1)) });
  printTable([row('API alone', before), row('API during the flood', during), row('each flood request held its handler', held)]);
  printTable([
    {
      flood_requests: held.length,
      answers: [...statuses].map(([s, c]) => `${s}×${c}`).join(' '),
      blackhole_connections: connections,
      db_calls_per_flood_request_p50: percentile(dbCalls, 50),
      p50_ratio: Number((percentile(during, 50) / percentile(before, 50)).toFixed(2)),
      p99_ratio: Number((percentile(during, 99) / percentile(before, 99)).toFixed(2)),
    },
  ]);

  for (const socket of sockets) socket.destroy();
  blackhole.close();
  await emulators.stop();
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
