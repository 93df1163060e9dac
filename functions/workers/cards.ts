// Worker: the `cards` queue — gives a status the preview card of its link (Mastodon's
// LinkCrawlWorker): lib/cards/ fetches the page through the address guard, stores one card
// per URL with its image in the bucket, attaches it and streams the status again.
import type { Context, SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { processCardRequest } from '../../lib/cards';
import { log } from '../../lib/log';
import { worker } from '../../lib/queue/worker';

const processRecord = worker('cards', async (message) => {
  const outcome = await processCardRequest(message);
  log.info('cards: done', { statusId: message.statusId, outcome });
});

// Each record may wait on another web server (5 s for the page, up to 30 s for its image): a batch's
// records run side by side, each reporting its own failure, so one slow site does not hold up the rest.
export async function handler(event: SQSEvent, _context?: Context): Promise<SQSBatchResponse> {
  const answers = await Promise.all((event.Records ?? []).map((record) => processRecord({ Records: [record] })));
  return { batchItemFailures: answers.flatMap((a) => a.batchItemFailures) };
}
