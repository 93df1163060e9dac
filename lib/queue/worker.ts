// Wraps a message processor into an SQS handler with partial batch responses:
// a message that fails is reported, the others are not retried. Each message is read
// with its queue's contract (./messages.ts); one that does not parse is dropped.
import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { requireStage } from '../config';
import { log } from '../log';
import { inRequestScope } from '../request_scope';
import { loadSecrets } from '../secrets';
import { queueMessages, type Message, type QueueName } from './messages';

export function worker<Q extends QueueName>(queue: Q, process: (message: Message<Q>) => Promise<void>) {
  // Built when a worker's module loads: without STAGE the function refuses to start.
  requireStage();
  const schema: z.ZodType<Message<Q>, z.ZodTypeDef, unknown> = queueMessages[queue];
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    try {
      await loadSecrets();
    } catch {
      // Logged where it failed. Every message goes back to its queue, untouched, for a later invocation.
      return { batchItemFailures: (event.Records ?? []).map((record) => ({ itemIdentifier: record.messageId })) };
    }
    for (const record of event.Records ?? []) {
      let message: Message<Q>;
      try {
        message = schema.parse(JSON.parse(record.body));
      } catch (err) {
        // A malformed message will never succeed: drop it loudly rather than retry it forever.
        log.error('worker: malformed message dropped', { worker: queue, messageId: record.messageId, err });
        continue;
      }
      try {
        // Each message reads afresh: what a request read before enqueuing it (inline, on the test stage) is not reused.
        await inRequestScope(() => process(message));
      } catch (err) {
        log.error('worker: message failed', { worker: queue, messageId: record.messageId, err });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
