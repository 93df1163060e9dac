// The posting path's share of a public post's streaming: bounded however many anonymous listeners
// the public stream has (listeners opened through the real $connect handler; the Management API
// stand-in records frames; the fan-out worker's queued pages are captured and then run).
import type { SQSEvent } from 'aws-lambda';
import { observeRequests } from '../../lib/aws';
import { registerInlineWorker } from '../../lib/queue';
import type { FanoutMessage } from '../../lib/queue/messages';
import { SHARED_PAGE_SIZE } from '../../lib/streaming/publish';
import { fanOutPage } from '../../lib/timelines/fanout';
import { processFanout } from '../../lib/timelines/fanout_queue';
import { aPostedStatus, aUser } from '../support/factories';
import { connectThroughHandler, MAX_POST_BYTES, useManagementApi } from '../support/management-api';

const frames: { connectionId: string; event: string; payload?: string }[] = [];
useManagementApi((req, res) => {
  if (req.method === 'POST' && req.connectionId) {
    const frame = JSON.parse(req.body.toString('utf8')) as { event: string; payload?: string };
    frames.push({ connectionId: req.connectionId, event: frame.event, payload: frame.payload });
  }
  res.writeHead(200).end();
});

const queued: FanoutMessage[] = [];
registerInlineWorker('fanout', async (event: SQSEvent) => {
  for (const r of event.Records) queued.push(JSON.parse(r.body) as FanoutMessage);
});

const LISTENERS = 500;

it(`sends a public post to at most ${SHARED_PAGE_SIZE} of ${LISTENERS} anonymous public listeners on the posting path and queues the rest in bounded pages`, async () => {
  const listeners: string[] = [];
  for (let i = 0; i < LISTENERS; i += 20) {
    listeners.push(...(await Promise.all(Array.from({ length: Math.min(20, LISTENERS - i) }, () => connectThroughHandler(undefined, { stream: 'public' })))));
  }
  const { account } = await aUser();
  const status = await aPostedStatus(account, { visibility: 'public' });

  let posts = 0;
  let dbCalls = 0;
  const stop = observeRequests((req) => {
    if (req.service === 'execute-api') posts++;
    else if (req.service === 'dynamodb') dbCalls++;
  });
  try {
    await fanOutPage(status.id);
  } finally {
    stop();
  }
  // The posting path: one page of listeners, a bounded number of table calls, the rest queued.
  expect(posts).toBeLessThanOrEqual(SHARED_PAGE_SIZE);
  expect(dbCalls).toBeLessThan(60);
  const pages = queued.filter((m) => m.type === 'stream');
  expect(pages).toHaveLength(1);

  // Each queued page is bounded too and queues the next: every listener hears the post once.
  const pageSends: number[] = [];
  while (queued.length > 0) {
    const message = queued.shift()!;
    const before = frames.length;
    await processFanout(message);
    pageSends.push(frames.length - before);
  }
  expect(Math.max(...pageSends)).toBeLessThanOrEqual(SHARED_PAGE_SIZE);
  for (const id of listeners) expect(frames.filter((f) => f.connectionId === id && f.event === 'update')).toHaveLength(1);
}, 300_000);

it('sends a status whose event would pass the 128 KiB frame limit as the same Status with a link for its content', async () => {
  const listener = await connectThroughHandler(undefined, { stream: 'public' });
  const { account } = await aUser();
  // 99,900 control characters: ~100 KB stored, ~600 KB once escaped twice in a frame.
  const controls = '\u0001'.repeat(99_900);
  const status = await aPostedStatus(account, { visibility: 'public', text: controls, contentHtml: `<p>${controls}</p>` });
  const before = frames.length;
  await fanOutPage(status.id);
  // The listeners of the test before are still subscribed: this one may be on a queued page.
  while (queued.length > 0) await processFanout(queued.shift()!);
  const mine = frames.slice(before).filter((f) => f.connectionId === listener && f.event === 'update');
  expect(mine).toHaveLength(1);
  const frameBytes = Buffer.byteLength(JSON.stringify({ stream: ['public'], event: 'update', payload: mine[0]!.payload }));
  expect(frameBytes).toBeLessThanOrEqual(MAX_POST_BYTES);
  const payload = JSON.parse(mine[0]!.payload!) as Record<string, unknown>;
  expect(payload).toMatchObject({ id: status.id, account: { id: account.id }, visibility: 'public' });
  expect(payload.content).toContain(String(payload.url));
});
