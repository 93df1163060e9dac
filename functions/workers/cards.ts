// Worker: the `cards` queue — gives a status the preview card of its link (Mastodon's
// LinkCrawlWorker): lib/cards/ fetches the page through the address guard, stores one card
// per URL with its image in the bucket, attaches it and streams the status again.
import { processCardRequest } from '../../lib/cards';
import { log } from '../../lib/log';
import { worker } from '../../lib/queue/worker';

// Each record may wait on another web server (5 s for the page, up to 30 s for its image): a batch's
// records run side by side, each reporting its own failure, so one slow site does not hold up the rest.
export const handler = worker('cards', async (message) => {
  const outcome = await processCardRequest(message);
  log.info('cards: done', { statusId: message.statusId, outcome });
}, { sideBySide: true });
