// Wraps a message processor into an SQS handler with partial batch responses:
// a message that fails is reported, the others are not retried. The invocation
// itself succeeds, so Lambda's Errors metric never sees such a failure: its log
// line carries a MessagesFailed datum (../metrics.ts), which an alarm watches. Each message is read
// with its queue's contract (./messages.ts); one that does not parse is dropped.
import type { Context, SQSEvent, SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { requireStage } from '../config';
import { log, logInvocation } from '../log';
import { countFields } from '../metrics';
import { inRequestScope } from '../request_scope';
import { loadSecrets } from '../secrets';
import { queueMessages, type Message, type QueueName } from './messages';

/** The metric of messages that failed (infra/alarms.yml WorkerMessageFailureAlarm): a failed message is no failed invocation. */
export const FAILED_MESSAGES_METRIC = 'MessagesFailed';
const failedMessages = (queue: QueueName, count: number) => countFields(FAILED_MESSAGES_METRIC, count, { Queue: queue });

export function worker<Q extends QueueName>(queue: Q, process: (message: Message<Q>) => Promise<void>) {
  // Built when a worker's module loads: without STAGE the function refuses to start.
  requireStage();
  const schema: z.ZodType<Message<Q>, z.ZodTypeDef, unknown> = queueMessages[queue];
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    logInvocation(context);
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    try {
      await loadSecrets();
    } catch {
      // Logged where it failed. Every message goes back to its queue, untouched, for a later invocation.
      const records = event.Records ?? [];
      log.error('worker: batch returned, secrets unavailable', { worker: queue, ...failedMessages(queue, records.length) });
      return { batchItemFailures: records.map((record) => ({ itemIdentifier: record.messageId })) };
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
        log.error('worker: message failed', { worker: queue, messageId: record.messageId, err, ...failedMessages(queue, 1) });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
