// Private notes on accounts (Mastodon's Api::V1::Accounts::NotesController): the writer
// alone sees a note, as `note` in its Relationships. A blank comment removes the note;
// the comment is kept as written, at most NOTE_COMMENT_MAX characters (AccountNote's validation).
import { deleteAccountNote, putAccountNote } from '../db/account_notes';
import type { Account } from '../db/accounts';
import { renderRelationship, type Relationship } from '../graph/relationships';
import { targetState } from '../graph/target_state';
import { charLength, describe, Violations } from './violations';

export const NOTE_COMMENT_MAX = 2000;

/** Ruby's String#blank?: empty or only whitespace. */
const isBlank = (s: string) => /^\s*$/u.test(s);

export async function setAccountNote(viewer: Account, targetId: string, comment: string | undefined): Promise<Relationship> {
  const state = await targetState(viewer, targetId);
  const target = state.account;
  if (comment === undefined || isBlank(comment)) {
    if (state.note !== undefined) await deleteAccountNote(viewer.id, target.id);
    return renderRelationship(target.id, { ...state, note: undefined });
  }
  if (charLength(comment) > NOTE_COMMENT_MAX) {
    throw new Violations().add('comment', 'Comment', 'ERR_TOO_LONG', describe.tooLong(NOTE_COMMENT_MAX)).error();
  }
  if (comment !== state.note) await putAccountNote(viewer.id, target.id, comment);
  return renderRelationship(target.id, { ...state, note: comment });
}
