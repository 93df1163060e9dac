// Worker: the `remoteMedia` queue — copies a remote status's attachment or a remote
// account's avatar or header into our bucket, so it is served from our media URL
// (lib/federation/remote_media.ts: fetching, limits, retries; lib/media/remote.ts:
// processing as uploads are processed), reads a remote account's featured
// collection, its pinned posts (lib/federation/featured.ts), and a remote status's
// replies for a thread a viewer opened (lib/federation/replies.ts).
import { readFeaturedOf } from '../../lib/federation/featured';
import { copyRemoteMedia } from '../../lib/federation/remote_media';
import { fetchAllReplies } from '../../lib/federation/replies';
import { worker } from '../../lib/queue/worker';

// Each record waits on another server (up to 30 s): a batch's records run side by side,
// each reporting its own failure, so one slow server does not hold up the rest.
export const handler = worker('remoteMedia', async (message) => {
  if (message.kind === 'featured') await readFeaturedOf(message.accountId);
  else if (message.kind === 'replies') await fetchAllReplies(message.statusId, message.refreshId);
  else await copyRemoteMedia(message);
}, { sideBySide: true });
