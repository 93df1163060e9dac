// Delivery fair per destination server (lib/federation/deliver.ts, lib/db/delivery_slots.ts; issue 27): a server
// has a few deliveries in flight at most, across workers; a message whose server has none free is sent back with a
// delay, its attempt not counted; a server that keeps failing is slow (one in flight, a shorter limit). Peers are
// HTTP servers on loopback; the deliver queue is an in-memory stand-in for SQS (lib/queue registerInlineQueue) that
// this file feeds to the real worker, at most ten batches of ten at once, as Lambda's event source would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { handler as deliverWorker } from '../../functions/workers/deliver';
import { deliveryServerState, takeDeliverySlot } from '../../lib/db/delivery_slots';
import * as keys from '../../lib/db/keys';
import { recordDeliveryFailure, serverHealthOf } from '../../lib/db/server_health';
import {
  DELIVERY_SLOTS_PER_SERVER, deliverOne, deliverTo, isSlowServer, SLOT_LEASE_MARGIN_MS, SLOW_SERVER_TIMEOUT_MS,
} from '../../lib/federation/deliver';
import { useRequestTimeout } from '../../lib/federation/fetch';
import { registerInlineQueue, registerInlineWorker, sqsEvent, type HeldMessage } from '../../lib/queue';
import type { DeliverMessage } from '../../lib/queue/messages';
import { aUser, type UserFixture } from '../support/factories';

/** A peer that answers 202 at once, or holds every request open (`hang`) until told to answer again. */
type Peer = {
  origin: string;
  host: string;
  hang: boolean;
  /** Activity ids of the POSTs it answered 202. */
  answered: string[];
  /** POSTs that arrived, answered or not. */
  arrived: number;
  open: number;
  mostOpen: number;
  /** Resolves once `n` requests are open at once. */
  opened: (n: number) => Promise<void>;
  close: () => Promise<void>;
};

async function aPeer(hang: boolean): Promise<Peer> {
  const waiters: { n: number; resolve: () => void }[] = [];
  const peer: Peer = { origin: '', host: '', hang, answered: [], arrived: 0, open: 0, mostOpen: 0, opened: async () => undefined, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      peer.arrived++;
      if (peer.hang) {
        peer.open++;
        peer.mostOpen = Math.max(peer.mostOpen, peer.open);
        for (const w of waiters.filter((w) => peer.open >= w.n)) w.resolve();
        res.on('close', () => peer.open--);
        return;
      }
      peer.answered.push(String(JSON.parse(Buffer.concat(chunks).toString('utf8')).id));
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  peer.origin = `http://127.0.0.1:${port}`;
  peer.host = `127.0.0.1:${port}`;
  peer.opened = (n) => (peer.open >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })));
  peer.close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return peer;
}

// ---- the stand-in for SQS ----
let queued: HeldMessage[] = [];
const bodyOf = (m: HeldMessage) => m.body as DeliverMessage;

/**
 * Feeds the queued messages that `ready` accepts to the real worker, at most ten batches of ten at once, until none
 * is left that it accepts and no batch is running; answers the records the worker failed (for the dead-letter queue).
 */
async function drain(ready: (m: HeldMessage) => boolean): Promise<number> {
  let failed = 0;
  const running = new Set<Promise<void>>();
  for (;;) {
    while (running.size < 10) {
      const batch = queued.filter(ready).slice(0, 10);
      if (batch.length === 0) break;
      queued = queued.filter((m) => !batch.includes(m));
      const run: Promise<void> = deliverWorker(sqsEvent('deliver', batch.map((m) => m.body)), {} as Context)
        .then((answer) => void (failed += answer.batchItemFailures.length))
        .finally(() => running.delete(run));
      running.add(run);
    }
    if (running.size === 0) return failed;
    await Promise.race(running);
  }
}

let sender: UserFixture;
const peers: Peer[] = [];
const peer = async (hang: boolean) => {
  const p = await aPeer(hang);
  peers.push(p);
  return p;
};

beforeEach(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  queued = [];
  registerInlineQueue('deliver', (m) => queued.push(m));
  sender = await aUser();
});
afterEach(async () => {
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  useRequestTimeout(undefined);
  registerInlineWorker('deliver', (event, context) => deliverWorker(event, context));
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

const activity = (n: number) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `https://social.example/users/${sender.account.username}/statuses/${n}/activity`,
  type: 'Create',
  actor: `https://social.example/users/${sender.account.username}`,
  object: { id: `https://social.example/users/${sender.account.username}/statuses/${n}`, type: 'Note', content: `<p>${n}</p>` },
});
const messageTo = (inbox: string, n = 1): DeliverMessage => ({ inbox, activity: activity(n), signer: { accountId: sender.account.id }, attempt: 1 });

describe('one server hanging among others', () => {
  it('the healthy server gets all its deliveries while the hanging one holds only its slots; its messages wait, then arrive once it answers', async () => {
    useRequestTimeout(5_000);
    const healthy = await peer(false);
    const hanging = await peer(true);
    for (let n = 0; n < 20; n++) await deliverTo(activity(n), [`${healthy.origin}/inbox`, `${hanging.origin}/inbox`], { accountId: sender.account.id });
    expect(queued).toHaveLength(40);

    // While it runs, what the hanging server sends back waits in the queue (as SQS would hold it for its delay).
    const firstSend = (m: HeldMessage) => bodyOf(m).attempt === 1 && bodyOf(m).deferrals === undefined;
    let openWhenHealthyDone = -1;
    const healthyDone = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (healthy.answered.length < 20) return;
        openWhenHealthyDone = hanging.open;
        clearInterval(check);
        resolve();
      }, 5);
    });
    const failed = await drain((m) => firstSend(m) || new URL(bodyOf(m).inbox).host === healthy.host);
    await healthyDone;

    expect(failed).toBe(0);
    expect(new Set(healthy.answered).size).toBe(20);
    // The healthy server was done while the hanging one still held requests open: it waited for nothing.
    expect(openWhenHealthyDone).toBeGreaterThan(0);
    expect(hanging.mostOpen).toBeLessThanOrEqual(DELIVERY_SLOTS_PER_SERVER);
    // Each of its 20 messages is waiting: those attempted for their retry (attempt 2), the others put off unattempted.
    const waiting = queued.map(bodyOf);
    expect(waiting).toHaveLength(20);
    expect(new Set(waiting.map((m) => m.activity.id)).size).toBe(20);
    expect(waiting.filter((m) => m.attempt === 2)).toHaveLength(hanging.arrived);
    for (const m of waiting.filter((m) => m.attempt === 1)) expect(m.deferrals).toBeGreaterThanOrEqual(1);
    expect(queued.every((m) => m.delaySeconds >= 1)).toBe(true);
    // The timed-out deliveries gave their slots back, and the server is remembered as slow.
    expect((await deliveryServerState(hanging.host)).held).toEqual([]);
    const health = await serverHealthOf(hanging.host);
    expect(health).toMatchObject({ failures: hanging.arrived });
    expect(isSlowServer(health, new Date())).toBe(true);

    // It answers again: every message waiting for it is delivered, once each.
    hanging.hang = false;
    expect(await drain(() => true)).toBe(0);
    expect(queued).toEqual([]);
    expect(hanging.answered.sort()).toEqual(Array.from({ length: 20 }, (_, n) => String(activity(n).id)).sort());
    expect(await serverHealthOf(hanging.host)).toBeUndefined();
  });

  it('a slow server has one delivery in flight, with a shorter limit; the others wait unattempted', async () => {
    useRequestTimeout(8_000);
    const hanging = await peer(true);
    await recordDeliveryFailure(hanging.host, new Date());
    await recordDeliveryFailure(hanging.host, new Date());
    const run = deliverWorker(sqsEvent('deliver', [1, 2, 3].map((n) => messageTo(`${hanging.origin}/inbox`, n))), {} as Context);
    await hanging.opened(1);
    const { held } = await deliveryServerState(hanging.host);
    expect(held).toHaveLength(1);
    expect(held[0]!.until - held[0]!.since).toBeLessThanOrEqual(SLOW_SERVER_TIMEOUT_MS + SLOT_LEASE_MARGIN_MS);
    expect(await run).toEqual({ batchItemFailures: [] });
    expect(hanging.mostOpen).toBe(1);
    const back = queued.map(bodyOf);
    expect(back.filter((m) => m.attempt === 2)).toHaveLength(1);
    expect(back.filter((m) => m.attempt === 1 && m.deferrals === 1)).toHaveLength(2);
    expect((await deliveryServerState(hanging.host)).held).toEqual([]);
  });
});

describe('slots', () => {
  it('a failed delivery gives its slot back', async () => {
    const failing = http.createServer((req, res) => (req.resume(), req.on('end', () => res.writeHead(503).end())));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(failing.address() as AddressInfo).port}`;
    try {
      expect(await deliverOne(messageTo(`http://${host}/inbox`))).toBe('retrying');
      expect((await deliveryServerState(host)).held).toEqual([]);
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  });

  it('slots held by others put the message off, its attempt uncounted; slots a crashed worker left free themselves when their lease runs out', async () => {
    const healthy = await peer(false);
    const all = Array.from({ length: DELIVERY_SLOTS_PER_SERVER }, (_, i) => i);
    const later = Date.now() + 60_000;
    for (const slot of all) expect(await takeDeliverySlot(healthy.host, [slot], `other-${slot}`, later)).toBe(slot);
    expect(await deliverOne(messageTo(`${healthy.origin}/inbox`))).toBe('deferred');
    expect(healthy.arrived).toBe(0);
    expect(queued.map(bodyOf)).toEqual([{ ...messageTo(`${healthy.origin}/inbox`), deferrals: 1 }]);
    expect(await serverHealthOf(healthy.host)).toBeUndefined();

    // A worker that died holding every slot: its leases ran out a moment ago.
    const other = await peer(false);
    const past = Date.now() - 1;
    for (const slot of all) expect(await takeDeliverySlot(other.host, [slot], `crashed-${slot}`, past, past - 1)).toBe(slot);
    expect(await deliverOne(messageTo(`${other.origin}/inbox`))).toBe('delivered');
    expect(other.answered).toHaveLength(1);
  });
});

describe('odd and huge server names', () => {
  it('keys a server by a bounded name: its host lower-cased, or a hash when longer or odder than a host can be', () => {
    expect(keys.deliveryServerPartition('Social.Example:8443')).toBe('SERVER#social.example:8443');
    expect(keys.deliveryServerPartition('[::1]:80')).toBe('SERVER#[::1]:80');
    for (const odd of ['a'.repeat(5_000), 'exa mple.org', 'bad\u0000host', 'ex%41mple.org']) {
      expect(keys.deliveryServerPartition(odd)).toMatch(/^SERVER##[0-9a-f]{64}$/);
    }
    expect(keys.serverHealth('a'.repeat(5_000)).PK).toBe(keys.deliverySlot('A'.repeat(5_000), 0).PK);
  });

  it('an inbox on a huge host is neither queued nor, when already queued, a failure of the worker', async () => {
    const inbox = `http://${'a'.repeat(3_000)}.example/inbox`;
    await deliverTo(activity(1), [inbox], { accountId: sender.account.id });
    expect(queued).toEqual([]);
    const event = sqsEvent('deliver', [messageTo(inbox)]);
    expect(await deliverWorker(event, {} as Context)).toEqual({ batchItemFailures: [] });
    expect(await deliverOne(messageTo(inbox))).toBe('dropped');
  });

  it('a long host within the URL limit has its health and slots under the bounded key', async () => {
    const host = `${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(1_500)}.example`;
    expect(await deliverOne(messageTo(`http://${host}/inbox`))).toBe('retrying');
    expect(await serverHealthOf(host)).toMatchObject({ failures: 1, domain: host });
    expect(keys.serverHealth(host).PK.length).toBeLessThan(80);
  });
});
