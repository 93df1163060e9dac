// Time to deliver one post to 1,000 remote followers on 10 servers: ten HTTP
// servers on loopback stand in for the servers, 100 followers each, stored as
// remote accounts that follow one local account through the follow transaction
// (which counts each under its server's shared inbox). Measured from reading the
// follower inboxes and calling deliverTo to the 10th POST received, with the
// inline queue mode (each message runs the deliver worker in-process: health read,
// signing with the account's RSA key, a guarded POST), against dynalite started in
// this process. A second case gives the followers no shared inbox: 1,000 POSTs.
// Each POST is checked against the author's public key on arrival (sampled).
// Usage: npx tsx bench/federation-delivery.ts   (DELIVERY_RUNS=5 by default)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { federationBench, percentile, printTable } from './lib';

const SERVERS = 10;
const FOLLOWERS_PER_SERVER = 100;
const RUNS = Math.max(1, Number(process.env.DELIVERY_RUNS ?? 5));

type Server = { origin: string; received: number; close: () => Promise<void> };

async function main() {
  const emulators = await federationBench('delivery');
  // Imported after the environment points at the emulators.
  const { accountItem, createLocalAccount } = await import('../lib/db/accounts');
  const { createRemoteAccount } = await import('../lib/db/remote');
  const { createFollow } = await import('../lib/db/follows');
  const { followerInboxesOf } = await import('../lib/db/follower_inboxes');
  const { deliverTo } = await import('../lib/federation/deliver');
  const { publicKeyOf } = await import('../lib/federation/keys');
  const { verifyRequest } = await import('../lib/federation/signatures');
  const { newId } = await import('../lib/ids');
  const { registerInlineWorker } = await import('../lib/queue');
  const { handler: deliverWorker } = await import('../functions/workers/deliver');
  registerInlineWorker('deliver', (event, context) => deliverWorker(event, context));

  // The servers: each counts POSTs, and calls `arrived` so the clock can stop at the last expected one.
  let expected = 0;
  let arrivedAll: (() => void) | undefined;
  let total = 0;
  let verifyNext = false;
  const toVerify: { path: string; headers: Record<string, string | undefined>; body: Buffer }[] = [];
  const servers: Server[] = await Promise.all(
    Array.from({ length: SERVERS }, async () => {
      const entry: Server = { origin: '', received: 0, close: async () => undefined };
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          entry.received++;
          total++;
          if (verifyNext) {
            verifyNext = false;
            toVerify.push({ path: req.url ?? '', headers: req.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) });
          }
          res.writeHead(202).end();
          if (total === expected) arrivedAll?.();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      entry.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      entry.close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
      return entry;
    }),
  );

  const local = async (username: string) => {
    const created = await createLocalAccount({ id: newId(), username, email: `${username}@example.com`, passwordHash: 'x', confirmedAt: new Date().toISOString() });
    if (!created.ok) throw new Error('local account');
    return created.account;
  };
  const withShared = await local('shared');
  const withoutShared = await local('personal');

  // 1,000 remote followers of each local account: 100 per server. One follow at a time: every
  // follow transaction moves the followed account's counter, and concurrent ones would only conflict.
  const setupStarted = performance.now();
  for (const [s, server] of servers.entries()) {
    const domain = new URL(server.origin).host;
    for (let i = 0; i < FOLLOWERS_PER_SERVER; i++) {
      for (const [followed, shared] of [[withShared, true], [withoutShared, false]] as const) {
        const uri = `${server.origin}/users/${followed.username}-f${s}-${i}`;
        const remote = accountItem.parse({
          id: newId(), username: `${followed.username}-f${s}-${i}`, domain, uri, createdAt: new Date().toISOString(),
          inboxUrl: `${uri}/inbox`, sharedInboxUrl: shared ? `${server.origin}/inbox` : null,
        });
        if (!(await createRemoteAccount(remote))) throw new Error('remote account');
        const inbox = remote.sharedInboxUrl ?? remote.inboxUrl!;
        const follow = { id: newId(), followerId: remote.id, followedId: followed.id, createdAt: new Date().toISOString(), showReblogs: true, notify: false };
        if (!(await createFollow(follow, { followerInbox: inbox }))) throw new Error('follow');
      }
    }
  }
  const setupMs = performance.now() - setupStarted;

  const activityOf = (username: string, n: number) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `https://bench.example/users/${username}/statuses/${n}/activity`,
    type: 'Create',
    actor: `https://bench.example/users/${username}`,
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    cc: [`https://bench.example/users/${username}/followers`],
    object: {
      id: `https://bench.example/users/${username}/statuses/${n}`,
      type: 'Note',
      attributedTo: `https://bench.example/users/${username}`,
      content: `<p>${'lorem ipsum '.repeat(40)}</p>`,
      published: new Date().toISOString(),
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`https://bench.example/users/${username}/followers`],
    },
  });

  /** One delivery of one post to every follower of `account`; answers ms to the last expected POST. */
  async function deliverOnce(account: typeof withShared, n: number): Promise<{ ms: number; requests: number; inboxes: number }> {
    total = 0;
    verifyNext = true;
    const started = performance.now();
    const inboxes = (await followerInboxesOf(account.id)).map((f) => f.inbox);
    expected = inboxes.length;
    const done = new Promise<void>((resolve) => (arrivedAll = resolve));
    await deliverTo(activityOf(account.username, n), inboxes, { accountId: account.id });
    await done;
    const ms = performance.now() - started;
    // Anything beyond the expected requests would show here after a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ms, requests: total, inboxes: inboxes.length };
  }

  const rows: Record<string, string | number>[] = [];
  try {
    for (const [label, account] of [['shared inboxes', withShared], ['personal inboxes only', withoutShared]] as const) {
      // The first delivery makes the account's key pair and opens the connections: shown apart.
      const cold = await deliverOnce(account, 0);
      const warm: number[] = [];
      let requests = 0;
      for (let run = 1; run <= RUNS; run++) {
        const r = await deliverOnce(account, run);
        warm.push(r.ms);
        requests = r.requests;
        if (r.requests !== r.inboxes) throw new Error(`${r.requests} requests for ${r.inboxes} inboxes`);
      }
      rows.push({
        case: `1,000 followers on ${SERVERS} servers, ${label}`,
        'requests per post': requests,
        'first ms (key pair made)': Math.round(cold.ms),
        [`median ms (${RUNS} runs)`]: Math.round(percentile(warm, 50)),
        'max ms': Math.round(Math.max(...warm)),
      });
      const publicKeyPem = await publicKeyOf(account);
      for (const sample of toVerify.splice(0)) {
        const verified = await verifyRequest({ method: 'POST', path: sample.path, headers: sample.headers, body: sample.body }, async () => ({ publicKeyPem, ownerUri: 'x' }));
        if (!verified.ok) throw new Error(`a delivered request does not verify: ${verified.reason}`);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await emulators.stop();
  }
  process.stdout.write(
    `\nDelivery of one post (deliverTo to the last POST received; inline queue, in-process dynalite; setup of 2,000 remote follows took ${Math.round(setupMs / 1000)} s):\n`,
  );
  printTable(rows);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
