// Private notes on accounts (Mastodon's AccountNote, POST /api/v1/accounts/:id/note):
// one item per (writer, account), read by exact key in the same batch as the rest of a
// Relationship (follows.graphStates), so a note costs no read of its own.
import { z } from 'zod';
import * as keys from './keys';
import { deleteItem, nowIso, putItem } from './table';

export const accountNoteItem = z.object({
  accountId: z.string(),
  targetAccountId: z.string(),
  comment: z.string(),
  updatedAt: z.string(),
});
export type AccountNote = z.infer<typeof accountNoteItem>;

/** Writes (or rewrites) the note `accountId` keeps about `targetAccountId`. */
export async function putAccountNote(accountId: string, targetAccountId: string, comment: string): Promise<AccountNote> {
  const note = accountNoteItem.parse({ accountId, targetAccountId, comment, updatedAt: nowIso() });
  await putItem({ ...keys.accountNote(accountId, targetAccountId), ...note });
  return note;
}

/** Removes the note, if there was one. */
export async function deleteAccountNote(accountId: string, targetAccountId: string): Promise<void> {
  await deleteItem(keys.accountNote(accountId, targetAccountId), accountNoteItem);
}
