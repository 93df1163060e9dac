// Worker: the `inbox` queue — what a received activity does (lib/inbox: Follow,
// Undo, Accept, Reject, Create, Delete, Update), each processed at most once.
// The inbox endpoints (functions/activitypub/inbox.ts) verified its signature.
import { processActivity } from '../../lib/inbox';
import { worker } from '../../lib/queue/worker';

export { processActivity } from '../../lib/inbox';

export const handler = worker('inbox', async (message) => {
  await processActivity(message);
});
