// The local stack's queues hold a delayed message as SQS does (infra/local/queue-front.ts): the queue adapter
// (lib/queue, lambda mode) marks a delayed message's SQS event, and the front on the invoke endpoint's port
// answers at once and passes the invocation on only when its delay is up; everything else passes straight through.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../infra/local/emulators';
import { requestedDelay, startQueueFront, type QueueFront } from '../../infra/local/queue-front';
import { sqsEvent } from '../../lib/queue';
import { eventually } from '../support/masto';

type Seen = { path: string; type: string | undefined; body: string };
let target: Server;
let seen: Seen[];
let front: QueueFront;
let frontUrl: string;
const said: string[] = [];

beforeEach(async () => {
  seen = [];
  target = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', type: req.headers['x-amz-invocation-type'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(req.headers['x-amz-invocation-type'] === 'Event' ? 202 : 200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' }).end('{"answered":true}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  const port = await freePort();
  front = await startQueueFront({ host: '127.0.0.1', port, target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, say: (line) => said.push(line) });
  frontUrl = `http://127.0.0.1:${port}`;
});
afterEach(async () => {
  await front.close();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

const invoke = (fn: string, payload: unknown, type = 'Event') =>
  fetch(`${frontUrl}/2015-03-31/functions/${fn}/invocations`, { method: 'POST', headers: { 'x-amz-invocation-type': type }, body: JSON.stringify(payload) });

describe('the queue front', () => {
  it('passes an invocation without a delay straight through, with the answer of serverless offline', async () => {
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ a: 1 }]));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ answered: true });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!.body).Records[0].body).toBe('{"a":1}');
    const sync = await invoke('tootless-local-sweeper', { at: 1 }, 'RequestResponse');
    expect(sync.status).toBe(200);
    expect(sync.headers.get('x-amz-executed-version')).toBe('$LATEST');
  });

  it('holds a delayed message: answered at once, passed on when its delay is up', async () => {
    const res = await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ retry: 2 }], 1));
    expect(res.status).toBe(202);
    expect(seen).toHaveLength(0);
    expect(front.held()).toBe(1);
    const arrived = await eventually(async () => seen[0], 'the held invocation', 10_000);
    expect(arrived.path).toBe('/2015-03-31/functions/tootless-local-deliverWorker/invocations');
    expect(JSON.parse(arrived.body).Records[0].body).toBe('{"retry":2}');
    expect(front.held()).toBe(0);
  });

  it('a held message not yet due when the stack stops is dropped with it, never delivered late', async () => {
    await invoke('tootless-local-deliverWorker', sqsEvent('deliver', [{ late: true }], 1));
    expect(front.held()).toBe(1);
    await front.close();
    front = await startQueueFront({ host: '127.0.0.1', port: await freePort(), target: 'http://127.0.0.1:9', say: () => undefined });
    // Past the delay: nothing reached serverless offline.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(seen).toHaveLength(0);
  });
});

describe('the delay a payload asks for', () => {
  it('is the adapter attribute of an SQS event, capped at SQS’s 900 s', () => {
    const asBuffer = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(requestedDelay(asBuffer(sqsEvent('deliver', [{}], 60)))).toBe(60);
    expect(requestedDelay(asBuffer(sqsEvent('deliver', [{}])))).toBe(0);
    const tooLong = sqsEvent('deliver', [{}], 60);
    tooLong.Records[0]!.messageAttributes.DelaySeconds!.stringValue = '5000';
    expect(requestedDelay(asBuffer(tooLong))).toBe(900);
    for (const other of ['', 'not json', '{"Records":[]}', '{"Records":[{"messageAttributes":{"DelaySeconds":{"stringValue":"-3"}}}]}', '[1]']) {
      expect(requestedDelay(Buffer.from(other))).toBe(0);
    }
  });
});
