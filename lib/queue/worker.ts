// Wraps a message processor into an SQS handler with partial batch responses:
// a message that fails is reported, the others are not retried. The invocation
// itself succeeds, so Lambda's Errors metric never sees such a failure: its log
// line carries a MessagesFailed datum (../metrics.ts), which an alarm watches. Each message is read
// with its queue's contract (./messages.ts); one that does not parse is dropped.
import middy from '@middy/core';
import sqsPartialBatchFailure from '@middy/sqs-partial-batch-failure';
import type { Context, SQSEvent, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { requireStage } from '../config';
import { log, logContext } from '../log';
import { countFields } from '../metrics';
import { inRequestScope } from '../request_scope';
import { loadSecrets } from '../secrets';
import { queueMessages, type Message, type QueueName } from './messages';

/** The metric of messages that failed (infra/alarms.yml WorkerMessageFailureAlarm): a failed message is no failed invocation. */
export const FAILED_MESSAGES_METRIC = 'MessagesFailed';
const failedMessages = (queue: QueueName, count: number) => countFields(FAILED_MESSAGES_METRIC, count, { Queue: queue });

export type WorkerOptions = {
  /**
   * Run a batch's messages side by side instead of one after another: for the workers whose messages each wait on
   * another server, so that one slow server does not hold up the rest.
   */
  sideBySide?: boolean;
};

/**
 * An SQS handler of `process`, built on middy: each message's outcome is settled, and
 * `@middy/sqs-partial-batch-failure` reports the failed ones. Without the secrets, every message goes back to its
 * queue, untouched, for a later invocation (the middleware's `onError`).
 */
export function worker<Q extends QueueName>(queue: Q, process: (message: Message<Q>) => Promise<void>, options: WorkerOptions = {}) {
  // Built when a worker's module loads: without STAGE the function refuses to start.
  requireStage();
  const schema: z.ZodType<Message<Q>, z.ZodTypeDef, unknown> = queueMessages[queue];

  const processRecord = async (record: SQSRecord): Promise<void> => {
    let message: Message<Q>;
    try {
      message = schema.parse(JSON.parse(record.body));
    } catch (err) {
      // A malformed message will never succeed: drop it loudly rather than retry it forever.
      log.error('worker: malformed message dropped', { worker: queue, messageId: record.messageId, err });
      return;
    }
    // Each message reads afresh: what a request read before enqueuing it (inline, on the test stage) is not reused.
    await inRequestScope(() => process(message));
  };

  const chain = middy<SQSEvent, unknown>()
    .use(logContext())
    .use(sqsPartialBatchFailure({
      logger: (err: unknown, record: SQSRecord) =>
        log.error('worker: message failed', { worker: queue, messageId: record.messageId, err, ...failedMessages(queue, 1) }),
    }))
    .use({ name: 'secretsLoaded', before: async () => void (await loadSecrets()) })
    .handler(async (event: SQSEvent) => {
      const records = event.Records ?? [];
      if (options.sideBySide) return Promise.allSettled(records.map(processRecord));
      const settled: PromiseSettledResult<void>[] = [];
      for (const record of records) {
        try {
          settled.push({ status: 'fulfilled', value: await processRecord(record) });
        } catch (reason) {
          settled.push({ status: 'rejected', reason });
        }
      }
      return settled;
    });

  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const answer = await chain(event, context ?? ({} as Context));
    return answer as SQSBatchResponse;
  };
}
