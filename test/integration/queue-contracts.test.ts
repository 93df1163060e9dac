// The queue contracts (lib/queue/messages.ts): a producer cannot send a message its
// queue's worker would drop, and a worker reads each message with its queue's schema.
import type { SQSEvent } from 'aws-lambda';
import { enqueue, registerInlineWorker, sqsEvent } from '../../lib/queue';
import { MalformedMessage, type Message } from '../../lib/queue/messages';
import { worker } from '../../lib/queue/worker';

const delivered: unknown[] = [];
registerInlineWorker('notify', async (event: SQSEvent) => {
  for (const r of event.Records) delivered.push(JSON.parse(r.body));
  return { batchItemFailures: [] };
});

beforeEach(() => {
  delivered.length = 0;
});

describe('enqueue', () => {
  it('refuses a message that breaks its queue contract, and delivers nothing', async () => {
    // @ts-expect-error 'boost' is not a notification kind: the message does not compile either.
    const sending = enqueue('notify', { type: 'boost', accountId: '1', fromAccountId: '2' });
    await expect(sending).rejects.toThrow(MalformedMessage);
    await expect(sending).rejects.toThrow('malformed notify message: type');
    expect(delivered).toEqual([]);
  });

  it('refuses an id that is not one', async () => {
    await expect(enqueue('notify', { type: 'follow', accountId: 'alice', fromAccountId: '2' })).rejects.toThrow(MalformedMessage);
    expect(delivered).toEqual([]);
  });

  it('delivers a well-formed message as it was sent', async () => {
    await enqueue('notify', { type: 'favourite', accountId: '1', fromAccountId: '2', statusId: '3' });
    expect(delivered).toEqual([{ type: 'favourite', accountId: '1', fromAccountId: '2', statusId: '3' }]);
  });
});

describe('worker(queue, run)', () => {
  it("reads messages with the queue's contract: drops a malformed one, fills defaults in the others", async () => {
    const received: Message<'fanout'>[] = [];
    const handler = worker('fanout', async (message) => {
      received.push(message);
    });
    const event = sqsEvent('fanout', [{ type: 'delete', statusId: 'x', accountId: '2' }, { type: 'delete', statusId: '1', accountId: '2' }]);
    const res = await handler(event);
    expect(res.batchItemFailures).toEqual([]);
    expect(received).toEqual([{ type: 'delete', statusId: '1', accountId: '2', mentionIds: [] }]);
  });

  it('reports a message whose processing fails, so that SQS retries only that one', async () => {
    const handler = worker('push', async (message) => {
      if (message.notificationId === '13') throw new Error('push service down');
    });
    const event = sqsEvent('push', [{ accountId: '1', notificationId: '12' }, { accountId: '1', notificationId: '13' }]);
    const res = await handler(event);
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1]!.messageId }]);
  });

  it('runs a batch one message after another, or side by side where the worker asks', async () => {
    for (const sideBySide of [false, true]) {
      let running = 0;
      let most = 0;
      const handler = worker('push', async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
      }, { sideBySide });
      const res = await handler(sqsEvent('push', [1, 2, 3].map((n) => ({ accountId: '1', notificationId: String(n) }))));
      expect(res.batchItemFailures).toEqual([]);
      expect(most).toBe(sideBySide ? 3 : 1);
    }
  });

  it('returns every message of the batch to its queue, unprocessed, when the secrets cannot be had', async () => {
    const processed: string[] = [];
    const handler = worker('push', async (message) => {
      processed.push(message.notificationId);
    });
    const event = sqsEvent('push', [{ accountId: '1', notificationId: '7' }, { accountId: '1', notificationId: '8' }]);
    const key = process.env.SECRET_KEY_BASE;
    const level = process.env.LOG_LEVEL;
    delete process.env.SECRET_KEY_BASE;
    process.env.LOG_LEVEL = 'silent';
    let res;
    try {
      res = await handler(event);
    } finally {
      process.env.SECRET_KEY_BASE = key;
      process.env.LOG_LEVEL = level;
    }
    expect(res.batchItemFailures).toEqual(event.Records.map((r) => ({ itemIdentifier: r.messageId })));
    expect(processed).toEqual([]);
  });
});
