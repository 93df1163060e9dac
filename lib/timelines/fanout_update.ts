// The fan-out of an edit (Mastodon's DistributionWorker with `update`): no home
// entry is written (each keeps pointing at the one status); the accounts with
// an open stream whose home holds the status, the lists that hold it and the
// public and hashtag streams hear `status.update` with the new version; the
// local accounts that reblogged it are notified (`update`); and our own status
// goes out as an Update(Note) to its remote audience. One message, no pages:
// run again, it publishes and sends the same version again (a notification is
// written once, the Update keeps its id).
import { accountById } from '../db/accounts';
import { allReblogEntriesOf } from '../db/interactions';
import { statusById, type Status } from '../db/statuses';
import { sendStatusUpdate } from '../federation/send_edits';
import { log } from '../log';
import { enqueue } from '../queue';
import { publishStatusUpdate } from '../streaming/publish';
import { requestCard } from '../cards/request';
import { notifyQuotersOfEdit } from '../notifications/quotes';

/** Every account that reblogged it (Mastodon notifies boosters of an edit); the notify worker keeps to local ones. */
async function notifyBoosters(status: Status): Promise<number> {
  const boosters = [...new Set((await allReblogEntriesOf(status.id)).map((e) => e.accountId))].filter((id) => id !== status.accountId);
  for (const accountId of boosters) await enqueue('notify', { type: 'update', accountId, fromAccountId: status.accountId, statusId: status.id });
  return boosters.length;
}

export async function fanOutUpdate(statusId: string): Promise<void> {
  const status = await statusById(statusId, true);
  if (!status || status.reblogOfId || !status.editedAt) {
    log.info('fanout: edited status gone', { statusId });
    return;
  }
  await publishStatusUpdate(status);
  // The edited text may link elsewhere (or nowhere): its card is found again off this path.
  await requestCard(status);
  const notified = (await notifyBoosters(status)) + (await notifyQuotersOfEdit(status));
  const author = await accountById(status.accountId);
  if (author) await sendStatusUpdate(status, author);
  log.info('fanout: edit published', { statusId, notified });
}
