// Resilience of delivery (issue 13: "a stack whose peer is down keeps serving; its
// deliveries retry with growing delays and end in the dead-letter queue without
// holding up deliveries to other servers"). One Create goes to four inboxes — one
// answering 500, one that never answers, one on a closed port, one healthy —
// through the real path: deliverTo and the deliver worker's retries send with
// lib/queue's SQS mode to a strict model of the deliver queue and its DLQ
// (test/support/sqs-model.ts, settings from infra/queues.yml), and the worker
// (functions/workers/deliver.ts) is fed batches as Lambda's event source mapping
// feeds it. Only Date is faked, so the eight hours of retries pass at once and
// the delays are read off the clock exactly; HTTP time limits run in real time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { handler as deliverWorker } from '../../functions/workers/deliver';
import { serverHealthOf } from '../../lib/db/server_health';
import { deliverTo, MAX_ATTEMPTS, RETRY_DELAYS_S } from '../../lib/federation/deliver';
import { useRequestTimeout } from '../../lib/federation/fetch';
import { MAX_DELAY_SECONDS } from '../../lib/queue';
import type { DeliverMessage } from '../../lib/queue/messages';
import { aUser } from '../support/factories';
import { queueSettingsFromTemplate, sqsModel, type SqsModel } from '../support/sqs-model';

/** What happened, in the order it happened, across all four peers. */
let events: string[] = [];

/** A peer on loopback: records the (faked) time of each POST and answers as `behaviour` says. */
type Peer = { name: string; inbox: string; postsAt: number[]; close: () => Promise<void> };

async function peer(name: string, behaviour: 'ok' | 'error' | 'hang'): Promise<Peer> {
  const postsAt: number[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      postsAt.push(Date.now());
      events.push(`${name} received`);
      if (behaviour === 'hang') {
        req.socket.once('close', () => events.push(`${name} cut`));
        return;
      }
      res.once('finish', () => events.push(`${name} answered`));
      res.writeHead(behaviour === 'ok' ? 202 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    name,
    inbox: `${origin}/inbox`,
    postsAt,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** An inbox on a port nothing listens on (it was just released): connections are refused. */
async function closedPortInbox(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/inbox`;
}

/** The deliver queue's sends to one inbox, as (attempt, DelaySeconds). */
const sendsTo = (queue: SqsModel, inbox: string) =>
  queue.sent.map((s) => ({ ...(s.body as DeliverMessage), delaySeconds: s.delaySeconds })).filter((m) => m.inbox === inbox).map((m) => [m.attempt, m.delaySeconds]);

/** The sends the retry schedule implies: attempt 1 at once, then each delay in hops of at most SQS's 900 s. */
function expectedSends(): [number, number][] {
  const sends: [number, number][] = [[1, 0]];
  RETRY_DELAYS_S.forEach((delay, i) => {
    for (let left = delay; left > 0; left -= MAX_DELAY_SECONDS) sends.push([i + 2, Math.min(left, MAX_DELAY_SECONDS)]);
  });
  return sends;
}

const settings = queueSettingsFromTemplate('Deliver');
let queue: SqsModel;
let peers: { error: Peer; hang: Peer; healthy: Peer };
let refusedInbox: string;
/** The size of each batch the worker was handed, in order. */
let batches: number[];

beforeAll(async () => {
  process.env.STAGE = 'local';
  process.env.FEDERATION_ALLOW_PRIVATE = '1';
  useRequestTimeout(800);
  queue = await sqsModel('deliver', settings);
  process.env.QUEUE_MODE = 'sqs';
  process.env.AWS_ENDPOINT_URL_SQS = queue.endpoint;
  process.env.QUEUE_URL_DELIVER = queue.queueUrl;
  peers = { error: await peer('error', 'error'), hang: await peer('hang', 'hang'), healthy: await peer('healthy', 'ok') };
  refusedInbox = await closedPortInbox();
  jest.useFakeTimers({
    now: new Date('2026-03-01T12:00:00Z'),
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });

  const author = await aUser();
  const activity = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `https://social.example/users/${author.account.username}/statuses/1/activity`,
    type: 'Create',
    actor: `https://social.example/users/${author.account.username}`,
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    object: { id: `https://social.example/users/${author.account.username}/statuses/1`, type: 'Note', content: '<p>hello</p>' },
  };
  events = [];
  // The hanging inbox first: a worker that took its records one by one would wait on it before the healthy one.
  await deliverTo(activity, [peers.hang.inbox, peers.error.inbox, refusedInbox, peers.healthy.inbox], { accountId: author.account.id });
  batches = await queue.poll(deliverWorker);
  events.push('first poll done');
  // Then as the queue would over the next hours: each time a message becomes visible, the worker gets it.
  for (let step = 0; step < 500 && queue.nextVisibleAt() !== undefined; step++) {
    jest.setSystemTime(queue.nextVisibleAt()!);
    batches.push(...(await queue.poll(deliverWorker)));
  }
}, 120_000);

afterAll(async () => {
  jest.useRealTimers();
  useRequestTimeout(undefined);
  process.env.QUEUE_MODE = 'inline';
  process.env.STAGE = 'test';
  delete process.env.FEDERATION_ALLOW_PRIVATE;
  await Promise.all(Object.values(peers).map((p) => p.close()));
  await queue.close();
});

describe('one activity to four inboxes, three of them failing', () => {
  it('hands the worker the four deliveries as one batch, worked side by side', () => {
    expect(batches[0]).toBe(4);
  });

  it('the healthy inbox gets it at once, once: its answer goes out while the hanging peer still holds its request', () => {
    expect(peers.healthy.postsAt).toHaveLength(1);
    const firstRound = events.slice(0, events.indexOf('first poll done'));
    expect(firstRound).toContain('healthy answered');
    expect(firstRound).toContain('hang cut');
    // The hanging record is first in the batch: had the worker waited on it, its cut would come before the healthy answer.
    expect(firstRound.indexOf('healthy answered')).toBeLessThan(firstRound.indexOf('hang cut'));
    expect(sendsTo(queue, peers.healthy.inbox)).toEqual([[1, 0]]);
  });

  it('the fetch time limit cuts the request the hanging peer never answers', () => {
    expect(events.filter((e) => e === 'hang received').length).toBe(events.filter((e) => e === 'hang cut').length);
  });

  it.each(['error', 'hang', 'refused'] as const)('the %s inbox is retried with growing delays, in hops of at most 15 minutes', (name) => {
    const inbox = name === 'refused' ? refusedInbox : peers[name].inbox;
    expect(sendsTo(queue, inbox)).toEqual(expectedSends());
  });

  it.each(['error', 'hang'] as const)('the %s peer sees each attempt after the delay, then the last one redriven a visibility timeout apart', (name) => {
    const posts = peers[name].postsAt;
    const gaps = posts.slice(1).map((at, i) => (at - posts[i]!) / 1000);
    // Eight attempts, RETRY_DELAYS_S apart; the last then comes back on the queue's own redrive until the
    // server is marked unavailable by its tenth failure (lib/federation/deliver.ts), after which it is not tried.
    expect(gaps.slice(0, MAX_ATTEMPTS - 1)).toEqual([...RETRY_DELAYS_S]);
    expect(gaps.slice(MAX_ATTEMPTS - 1)).toEqual([settings.visibilityTimeoutS, settings.visibilityTimeoutS]);
  });

  it('after the last attempt each failing delivery ends in the dead-letter queue, the healthy one never', () => {
    expect(queue.pending()).toBe(0);
    const letters = queue.deadLetters.map((l) => [(l.body as DeliverMessage).inbox, (l.body as DeliverMessage).attempt, l.receives]);
    expect(letters).toEqual(
      expect.arrayContaining([
        [peers.hang.inbox, MAX_ATTEMPTS, settings.maxReceiveCount],
        [peers.error.inbox, MAX_ATTEMPTS, settings.maxReceiveCount],
        [refusedInbox, MAX_ATTEMPTS, settings.maxReceiveCount],
      ]),
    );
    expect(letters).toHaveLength(3);
  });

  it('the failing servers are marked unavailable; the healthy one has no failures counted', async () => {
    for (const inbox of [peers.error.inbox, peers.hang.inbox, refusedInbox]) {
      const health = await serverHealthOf(new URL(inbox).host);
      expect(health?.unavailableUntil && Date.parse(health.unavailableUntil)).toBeGreaterThan(Date.now());
    }
    expect(await serverHealthOf(new URL(peers.healthy.inbox).host)).toBeUndefined();
  });
});
