// Worker: the `push` queue — sends a stored notification to its recipient's Web Push subscriptions.
import { pushNotification } from '../../lib/push/deliver';
import { worker } from '../../lib/queue/worker';

// Each record waits on other people's push services: a batch's records run side
// by side (each reporting its own failure), so one slow service does not hold up the rest.
export const handler = worker('push', async (message) => {
  await pushNotification(message);
}, { sideBySide: true });
