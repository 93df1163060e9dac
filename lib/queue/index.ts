// The queue adapter. Producers call `enqueue`; workers are SQS-triggered Lambdas.
// Where SQS exists (AWS, LocalStack) messages go to SQS. The embedded local stack
// has no SQS emulator, so the same SQS-shaped event is delivered to the worker
// through the local stack's Lambda invoke endpoint as an async (Event)
// invocation. Tests may register workers to run in-process (`inline`). Every
// message is checked against its queue's contract (./messages.ts) before it leaves.
import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord, SQSBatchResponse, Context } from 'aws-lambda';
import { countMessage } from '../aws';
import { invokeEvent } from '../aws/lambda';
import { sendMessage } from '../aws/sqs';
import { config } from '../config';
import { log } from '../log';
import { MalformedMessage, queueMessages, type MessageIn, type QueueName } from './messages';

export { QUEUES, type QueueName } from './messages';

/** The function that consumes each queue (`<queue>Worker` in serverless.yml). */
export const workerFunction = (queue: QueueName) => `${queue}Worker`;

/** The longest DelaySeconds SQS accepts. */
export const MAX_DELAY_SECONDS = 900;

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;
const inlineWorkers = new Map<QueueName, SqsHandler>();
/** A message kept by a test's or bench's stand-in for SQS, with the delay its producer asked for. */
export type HeldMessage = { body: unknown; delaySeconds: number };
const inlineQueues = new Map<QueueName, (message: HeldMessage) => void>();

/** Tests: run this queue's worker in-process when a message is enqueued. */
export function registerInlineWorker(queue: QueueName, handler: SqsHandler): void {
  inlineQueues.delete(queue);
  inlineWorkers.set(queue, handler);
}

/**
 * Tests and benches: hand this queue's messages to `keep`, with their delay, instead of running a worker: a stand-in
 * for SQS that holds delayed messages, whose owner feeds them to the worker when it chooses.
 */
export function registerInlineQueue(queue: QueueName, keep: (message: HeldMessage) => void): void {
  inlineWorkers.delete(queue);
  inlineQueues.set(queue, keep);
}

/**
 * Does a message sent to `queue` with a delay wait that long before its worker sees it? In SQS, in the lambda mode
 * (the local stack's invoke endpoint holds it, infra/local/lambda-api.ts) and in an inline queue that holds
 * messages; inline workers run it at once.
 */
export const queueHoldsDelays = (queue: QueueName): boolean =>
  config.queueMode === 'sqs' || config.queueMode === 'lambda' || (config.queueMode === 'inline' && inlineQueues.has(queue));

/** The record attribute that asks the local stack's invoke endpoint to hold an invocation (infra/local/lambda-api.ts). */
const LOCAL_DELAY_ATTRIBUTE = 'DelaySeconds';

/** An SQS event of `bodies`, as the queue's event source mapping hands them to its worker. `delaySeconds`: see LOCAL_DELAY_ATTRIBUTE. */
export function sqsEvent(queue: QueueName, bodies: unknown[], delaySeconds = 0): SQSEvent {
  const now = String(Date.now());
  return {
    Records: bodies.map((body): SQSRecord => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: now,
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: now,
      },
      messageAttributes: delaySeconds > 0 ? { [LOCAL_DELAY_ATTRIBUTE]: { dataType: 'Number', stringValue: String(delaySeconds) } } : {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${config.region}:000000000000:${queue}`,
      awsRegion: config.region,
    })),
  };
}

/**
 * Sends `message` to `queue`'s worker; throws `MalformedMessage`, sending nothing, if it breaks the queue's contract.
 * `delaySeconds` (retries that back off): SQS, and the local stack's invoke endpoint in the lambda mode, hold the
 * message that long (at most 900 s, SQS's limit); inline workers run it at once, so a worker must not count on
 * the delay there (queueHoldsDelays).
 */
export async function enqueue<Q extends QueueName>(queue: Q, message: MessageIn<Q>, opts: { delaySeconds?: number } = {}): Promise<void> {
  const checked = queueMessages[queue].safeParse(message);
  if (!checked.success) throw new MalformedMessage(queue, checked.error.issues);
  countMessage();
  const mode = config.queueMode;
  if (mode === 'sqs') {
    const QueueUrl = config.queueUrl(queue);
    if (!QueueUrl) throw new Error(`QUEUE_URL_${queue.toUpperCase()} is not set`);
    const DelaySeconds = opts.delaySeconds === undefined ? undefined : Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(opts.delaySeconds)));
    await sendMessage({ QueueUrl, MessageBody: JSON.stringify(message), DelaySeconds });
    return;
  }
  if (mode === 'lambda') {
    const FunctionName = `${config.functionPrefix}${workerFunction(queue)}`;
    const delay = opts.delaySeconds === undefined ? 0 : Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(opts.delaySeconds)));
    const status = await invokeEvent(FunctionName, JSON.stringify(sqsEvent(queue, [message], delay)));
    if (status >= 300) throw new Error(`invoke ${FunctionName}: ${status}`);
    return;
  }
  const keep = inlineQueues.get(queue);
  if (keep) {
    keep({ body: JSON.parse(JSON.stringify(message)), delaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(opts.delaySeconds ?? 0))) });
    return;
  }
  const handler = inlineWorkers.get(queue);
  if (!handler) throw new Error(`no inline worker registered for queue ${queue}`);
  const res = await handler(sqsEvent(queue, [message]), { awsRequestId: randomUUID() } as Context);
  if (res && res.batchItemFailures.length > 0) log.error('inline worker failed', { queue });
}
