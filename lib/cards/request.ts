// Asks the cards worker (the `cards` queue) for a status's preview card, off the request path:
// the fan-out's first page of a new status and the fan-out of an edit call this. Only statuses
// that link somewhere, or that had a card their edit may have dropped, cost a message.
import type { Status } from '../db/statuses';
import { log } from '../log';
import { enqueue } from '../queue';
import { cardLinkOf } from './link';

/** Queues the card fetch of `status` if it needs one; a failure to queue costs the status its card, never its fan-out. */
export async function requestCard(status: Status): Promise<void> {
  if (!cardLinkOf(status) && !status.cardUrl) return;
  try {
    await enqueue('cards', { statusId: status.id });
  } catch (err) {
    log.warn('cards: fetch not queued', { statusId: status.id, err });
  }
}
