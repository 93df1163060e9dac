// Wraps a message processor into an SQS handler with partial batch responses:
// a message that fails (or does not parse) is reported, the others are not retried.
import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { log } from '../log';
import { loadSecrets } from '../secrets';

export function worker<S extends z.ZodTypeAny>(name: string, schema: S, process: (message: z.infer<S>) => Promise<void>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    try {
      await loadSecrets();
    } catch {
      // Logged where it failed. Every message goes back to its queue, untouched, for a later invocation.
      return { batchItemFailures: (event.Records ?? []).map((record) => ({ itemIdentifier: record.messageId })) };
    }
    for (const record of event.Records ?? []) {
      let message: z.infer<S>;
      try {
        message = schema.parse(JSON.parse(record.body));
      } catch (err) {
        // A malformed message will never succeed: drop it loudly rather than retry it forever.
        log.error('worker: malformed message dropped', { worker: name, messageId: record.messageId, err });
        continue;
      }
      try {
        await process(message);
      } catch (err) {
        log.error('worker: message failed', { worker: name, messageId: record.messageId, err });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
