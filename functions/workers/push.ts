// Worker: the `push` queue — sends a stored notification to its recipient's Web Push subscriptions.
import type { Context, SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { pushNotification } from '../../lib/push/deliver';
import { worker } from '../../lib/queue/worker';

const processRecord = worker('push', async (message) => {
  await pushNotification(message);
});

// Each record waits on other people's push services: a batch's records run side
// by side (each reporting its own failure), so one slow service does not hold up the rest.
export async function handler(event: SQSEvent, _context?: Context): Promise<SQSBatchResponse> {
  const answers = await Promise.all((event.Records ?? []).map((record) => processRecord({ Records: [record] })));
  return { batchItemFailures: answers.flatMap((a) => a.batchItemFailures) };
}
