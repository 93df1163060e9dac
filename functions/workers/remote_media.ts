// Worker: the `remoteMedia` queue — copies a remote status's attachment or a remote
// account's avatar or header into our bucket, so it is served from our media URL
// (lib/federation/remote_media.ts: fetching, limits, retries; lib/media/remote.ts:
// processing as uploads are processed), and reads a remote account's featured
// collection, its pinned posts (lib/federation/featured.ts).
import type { Context, SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { readFeaturedOf } from '../../lib/federation/featured';
import { copyRemoteMedia } from '../../lib/federation/remote_media';
import { worker } from '../../lib/queue/worker';

const processRecord = worker('remoteMedia', async (message) => {
  if (message.kind === 'featured') await readFeaturedOf(message.accountId);
  else await copyRemoteMedia(message);
});

// Each record waits on another server (up to 30 s): a batch's records run side by side,
// each reporting its own failure, so one slow server does not hold up the rest.
export async function handler(event: SQSEvent, _context?: Context): Promise<SQSBatchResponse> {
  const answers = await Promise.all((event.Records ?? []).map((record) => processRecord({ Records: [record] })));
  return { batchItemFailures: answers.flatMap((a) => a.batchItemFailures) };
}
