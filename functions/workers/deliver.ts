// Worker: the `deliver` queue — POSTs one of our activities to one remote inbox, signed
// (ActivityPub server-to-server delivery, https://www.w3.org/TR/activitypub/#delivery;
// Mastodon's https://docs.joinmastodon.org/spec/security/#http). Retries, the dead-letter
// queue and server health: lib/federation/deliver.ts.
import { deliverOne } from '../../lib/federation/deliver';
import { worker } from '../../lib/queue/worker';

// Each record waits on another server (up to 10 s): a batch's records run side by side,
// each reporting its own failure. The invocation lasts as long as its slowest record, so a
// server holds few records at once (its delivery slots, lib/federation/deliver.ts): the
// rest of its messages go back to the queue, and other servers' batches are not held.
export const handler = worker('deliver', async (message) => {
  await deliverOne(message);
}, { sideBySide: true });
