// The deliver queue's dead letters (infra/queues.yml DeliverDeadLetterQueue):
// deliveries whose last attempt failed (lib/federation/deliver.ts), read for the
// operator and sent back to the deliver queue on request. Only SQS keeps dead
// letters: the local stack invokes the workers directly (QUEUE_MODE=lambda) and a
// delivery that fails there for good is only logged.
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { config } from '../config';
import { enqueue } from '../queue';
import { queueMessages } from '../queue/messages';
import { AdminError } from './commands';

// The operator CLI only, never a function: the SDK's client (and its credential chain) is no weight there.
let sqsClient: SQSClient | undefined;
const sqs = (): SQSClient => (sqsClient ??= new SQSClient({ endpoint: config.endpointFor('SQS'), region: config.region }));

/** Where the dead-letter queue is: QUEUE_URL_DELIVER_DLQ, beside the functions' QUEUE_URL_DELIVER. */
const dlqUrl = (): string => {
  const url = config.queueUrl('deliver_dlq');
  if (!url) {
    throw new AdminError(
      'No deliver dead-letter queue: set QUEUE_URL_DELIVER_DLQ to its URL (the local stack invokes its workers directly and keeps no dead letters).',
    );
  }
  return url;
};

/** At most this many dead letters are read per command (SQS hands out ten per receive). */
const MAX_LETTERS = 500;
/** While listed, letters are hidden from other readers this long; the listing then makes them visible again. */
const LISTING_HOLD_S = 30;

export type DeadLetter = { inbox: string; activityType: string; activityId: string; attempts: number; receipts: number };

/** Receives every message (up to MAX_LETTERS), each hidden for `holdSeconds` from other readers meanwhile. */
async function receiveAll(holdSeconds: number): Promise<Message[]> {
  const QueueUrl = dlqUrl();
  const seen = new Map<string, Message>();
  while (seen.size < MAX_LETTERS) {
    const { Messages = [] } = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: holdSeconds, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
    );
    const fresh = Messages.filter((m) => m.MessageId && !seen.has(m.MessageId));
    if (fresh.length === 0) break;
    for (const m of fresh) seen.set(m.MessageId!, m);
  }
  return [...seen.values()];
}

function describe(message: Message): DeadLetter {
  const parsed = queueMessages.deliver.safeParse(safeJson(message.Body));
  const receipts = Number(message.Attributes?.ApproximateReceiveCount ?? 0);
  if (!parsed.success) return { inbox: '(unreadable message)', activityType: '?', activityId: message.MessageId ?? '?', attempts: 0, receipts };
  const activity = parsed.data.activity;
  return {
    inbox: parsed.data.inbox,
    activityType: typeof activity.type === 'string' ? activity.type : '?',
    activityId: typeof activity.id === 'string' ? activity.id : '?',
    attempts: parsed.data.attempt,
    receipts,
  };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

/** The dead letters, each left in the queue (made visible again once read). */
export async function deadLetters(): Promise<DeadLetter[]> {
  const messages = await receiveAll(LISTING_HOLD_S);
  const QueueUrl = dlqUrl();
  await Promise.all(
    messages.map((m) => sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 }))),
  );
  return messages.map(describe);
}

/**
 * Sends each dead letter back to the deliver queue as a first attempt (the retry schedule starts over), then
 * deletes it from the dead-letter queue; an unreadable one is left there. Answers how many were moved.
 */
export async function retryDeadLetters(): Promise<number> {
  const QueueUrl = dlqUrl();
  let moved = 0;
  for (const message of await receiveAll(LISTING_HOLD_S)) {
    const parsed = queueMessages.deliver.safeParse(safeJson(message.Body));
    if (!parsed.success) continue;
    const { notBefore: _waited, ...delivery } = parsed.data;
    await enqueue('deliver', { ...delivery, attempt: 1 });
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle! }));
    moved++;
  }
  return moved;
}
