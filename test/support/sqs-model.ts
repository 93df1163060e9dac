// A strict model of one SQS queue and its dead-letter queue, for tests of what
// SQS does to our workers and the local stack cannot show (it invokes workers
// directly: no delay, no receive count, no redrive). It speaks SQS's JSON protocol
// on loopback, so lib/queue's real `sqs` mode (SendMessageCommand, DelaySeconds)
// sends to it; the queue's VisibilityTimeout and maxReceiveCount are read from
// infra/queues.yml, as CloudFormation deploys them. `poll` stands in for Lambda's
// event source mapping with ReportBatchItemFailures: batches of up to ten, the
// reported failures left to come back after the visibility timeout, the rest
// deleted. A message received more than maxReceiveCount times moves to the DLQ
// (at that receive, as SQS does). Time is the process's Date (a test with fake
// Date moves it with `jumpToNextVisible`), so the model and the worker agree.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type QueueSettings = { visibilityTimeoutS: number; maxReceiveCount: number };

/** The settings infra/queues.yml gives the queue `<Name>Queue` (e.g. `Deliver`). */
export function queueSettingsFromTemplate(resourcePrefix: string): QueueSettings {
  const template = readFileSync(new URL('../../infra/queues.yml', import.meta.url), 'utf8');
  const block = new RegExp(`^  ${resourcePrefix}Queue:\\n((?:    .*\\n|\\s*\\n)+)`, 'm').exec(template)?.[1];
  const visibility = block && /VisibilityTimeout: (\d+)/.exec(block)?.[1];
  const receives = block && /maxReceiveCount: (\d+)/.exec(block)?.[1];
  if (!visibility || !receives) throw new Error(`infra/queues.yml: no VisibilityTimeout and maxReceiveCount for ${resourcePrefix}Queue`);
  return { visibilityTimeoutS: Number(visibility), maxReceiveCount: Number(receives) };
}

type Stored = { id: string; body: string; visibleAt: number; receives: number; receipt?: string; sentAt: number };
/** One SendMessage as the queue saw it: when (by Date.now()), with which delay, what body. */
export type Sent = { at: number; delaySeconds: number; body: unknown };

export type SqsModel = {
  /** The queue URL to set as QUEUE_URL_<QUEUE>; also the SQS endpoint. */
  queueUrl: string;
  endpoint: string;
  sent: Sent[];
  /** Bodies moved to the dead-letter queue, in order, with the receive count that sent them there. */
  deadLetters: { body: unknown; receives: number }[];
  /** Messages neither deleted nor dead-lettered. */
  pending: () => number;
  /** Receives and works batches until no message is visible now; answers the batches' sizes. */
  poll: (handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>) => Promise<number[]>;
  /** The earliest time (ms) a pending message becomes visible, if any is pending. */
  nextVisibleAt: () => number | undefined;
  close: () => Promise<void>;
};

const MAX_DELAY_S = 900;
const MAX_BATCH = 10;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

class SqsError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export async function sqsModel(queueName: string, settings: QueueSettings): Promise<SqsModel> {
  const messages: Stored[] = [];
  const sent: Sent[] = [];
  const deadLetters: SqsModel['deadLetters'] = [];

  function sendMessage(input: { MessageBody?: string; DelaySeconds?: number }) {
    const delay = input.DelaySeconds ?? 0;
    if (!Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_S) {
      throw new SqsError('InvalidParameterValue', `DelaySeconds must be 0 to ${MAX_DELAY_S}, not ${delay}`);
    }
    if (typeof input.MessageBody !== 'string' || input.MessageBody === '') throw new SqsError('MissingParameter', 'MessageBody');
    const now = Date.now();
    const message: Stored = { id: randomUUID(), body: input.MessageBody, visibleAt: now + delay * 1000, receives: 0, sentAt: now };
    messages.push(message);
    sent.push({ at: now, delaySeconds: delay, body: JSON.parse(input.MessageBody) });
    return { MessageId: message.id, MD5OfMessageBody: md5(message.body) };
  }

  /** Visible messages, up to `max`; each received once more, past maxReceiveCount moved to the DLQ instead. */
  function receive(max: number): Stored[] {
    const now = Date.now();
    const out: Stored[] = [];
    for (const message of [...messages]) {
      if (out.length >= max) break;
      if (message.visibleAt > now) continue;
      message.receives += 1;
      if (message.receives > settings.maxReceiveCount) {
        messages.splice(messages.indexOf(message), 1);
        deadLetters.push({ body: JSON.parse(message.body), receives: message.receives - 1 });
        continue;
      }
      message.receipt = randomUUID();
      message.visibleAt = now + settings.visibilityTimeoutS * 1000;
      out.push(message);
    }
    return out;
  }

  const remove = (receipt: string) => {
    const at = messages.findIndex((m) => m.receipt === receipt);
    if (at >= 0) messages.splice(at, 1);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const answer = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      try {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (target === 'AmazonSQS.SendMessage') return answer(200, sendMessage(input));
        throw new SqsError('UnsupportedOperation', `the model does not do ${target}`);
      } catch (err) {
        const code = err instanceof SqsError ? err.code : 'InternalError';
        answer(400, { __type: `com.amazonaws.sqs#${code}`, message: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const recordOf = (message: Stored): SQSRecord => ({
    messageId: message.id,
    receiptHandle: message.receipt!,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receives),
      SentTimestamp: String(message.sentAt),
      SenderId: 'model',
      ApproximateFirstReceiveTimestamp: String(message.sentAt),
    },
    messageAttributes: {},
    md5OfBody: md5(message.body),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
    awsRegion: 'us-east-1',
  });

  return {
    queueUrl: `${endpoint}/000000000000/${queueName}`,
    endpoint,
    sent,
    deadLetters,
    pending: () => messages.length,
    nextVisibleAt: () => (messages.length ? Math.min(...messages.map((m) => m.visibleAt)) : undefined),
    async poll(handler) {
      const batches: number[] = [];
      for (let batch = receive(MAX_BATCH); batch.length > 0; batch = receive(MAX_BATCH)) {
        batches.push(batch.length);
        // A handler that throws fails the whole batch, as the event source mapping counts it.
        const answer = await handler({ Records: batch.map(recordOf) }, { awsRequestId: randomUUID() } as Context).catch(() => ({
          batchItemFailures: batch.map((m) => ({ itemIdentifier: m.id })),
        }));
        const failed = new Set((answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        for (const message of batch) if (!failed.has(message.id)) remove(message.receipt!);
      }
      return batches;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
