// What editing one of our statuses sends (Mastodon's
// ActivityPub::StatusUpdateDistributionWorker): the Note rendered anew, with
// `updated`, in an Update to the same remote audience as its Create. The
// Update's id is derived from the edit's time, so a fan-out run again sends the
// same activity, which receivers drop as a repeat.
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import type { Activity } from './activities';
import { deliver, ownPost, quietly, statusAudience } from './outbox';
import { DOCUMENT_CONTEXT, actorUriOf, renderNote, type ApObject } from './render';

/** The Update(Note) of an edited status of ours, with @context. */
export function updateNoteActivity(status: Status, author: Account, note: ApObject, at?: string): Activity {
  const editedAt = at ?? status.editedAt ?? status.createdAt;
  return {
    '@context': DOCUMENT_CONTEXT,
    id: `${String(note.id)}#updates/${Math.floor(Date.parse(editedAt) / 1000)}`,
    type: 'Update',
    actor: actorUriOf(author) ?? '',
    published: editedAt,
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/** An edit of our own status, to where its Create went. Nothing is read or rendered when it has no remote audience. */
export async function sendStatusUpdate(status: Status, author: Account): Promise<void> {
  if (!ownPost(status, author) || !status.editedAt) return;
  await quietly('Update(Note)', { statusId: status.id }, async () => {
    const { inboxes } = await statusAudience(status, author);
    if (inboxes.length === 0) return;
    await deliver(updateNoteActivity(status, author, await renderNote(status, author)), inboxes, author);
  });
}

/**
 * The Update(Note) of one of our statuses changed without an edit (a quote approved, its quote policy changed),
 * so that other servers refresh their copy, as Mastodon's StatusUpdateDistributionWorker with `updated_at`: named
 * by the time of the change. Never throws: the change stands either way.
 */
export async function sendNoteRefresh(status: Status, author: Account, at: string = new Date().toISOString()): Promise<void> {
  if (!ownPost(status, author)) return;
  await quietly('Update(Note)', { statusId: status.id }, async () => {
    const { inboxes } = await statusAudience(status, author);
    if (inboxes.length === 0) return;
    await deliver(updateNoteActivity(status, author, await renderNote(status, author), at), inboxes, author);
  });
}
