// The notification of an edit to a quoted status (Mastodon 4.5's `quoted_update`): the authors of its accepted
// quotes hear of it, about their own quoting status, from the editor, as Mastodon's fan-out of an update sends it.
import { quotesOfPage } from '../db/quotes';
import type { Status } from '../db/statuses';
import { enqueue } from '../queue';

/** Every page of the edited status's quotes; the notify worker keeps to local recipients. Answers how many were asked. */
export async function notifyQuotersOfEdit(status: Pick<Status, 'id' | 'accountId'>): Promise<number> {
  let notified = 0;
  let after: string | undefined;
  do {
    const page = await quotesOfPage(status.id, after);
    for (const quote of page.items) {
      if (quote.state !== 'accepted' || quote.accountId === status.accountId) continue;
      await enqueue('notify', { type: 'quoted_update', accountId: quote.accountId, fromAccountId: status.accountId, statusId: quote.statusId });
      notified++;
    }
    after = page.next;
  } while (after);
  return notified;
}
