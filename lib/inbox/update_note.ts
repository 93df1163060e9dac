// Update(Note) received from a remote actor: an edit of a status it wrote
// (Mastodon's ActivityPub::Activity::Update#update_status and
// ProcessStatusUpdateService). The Note passes the checks of storing one
// (readNote: its type, its id on the actor's server, attributed to the actor)
// and must be a status we hold of that actor; an Update without `updated`, or
// not newer than the version we have, changes nothing (Mastodon's implicit
// updates only refresh polls: ./update_question.ts). The edit keeps the previous
// version in the history, and is told through the fan-out to whoever has the
// status, as a local edit is (lib/statuses/edit.ts). Its visibility, thread and
// poll stay as they were.
import type { Account } from '../db/accounts';
import { mediaByIds, type Media } from '../db/media';
import { requestAttachmentCopies } from '../federation/media_requests';
import { pollById } from '../db/polls';
import { remoteStatusIdByUri } from '../db/remote';
import { statusById, type Status } from '../db/statuses';
import { mentionsOf, readNote, remoteStatusText, type ReadNote } from '../federation/notes';
import { dateOf, type ApDocument } from '../federation/vocab';
import { newId } from '../ids';
import { log } from '../log';
import { commitEdit, fanOutEdit } from '../statuses/edit';
import { onActorsServer, type Outcome, type Received } from './received';

/** The stored status the Note edits: the actor's own, by the Note's id. */
async function editedStatus(uri: string, actor: Account): Promise<Status | undefined> {
  const statusId = await remoteStatusIdByUri(uri);
  const status = statusId ? await statusById(statusId, true) : undefined;
  return status && status.accountId === actor.id && !status.reblogOfId ? status : undefined;
}

type MediaChanges = { mediaIds: string[]; newRemoteMedia: Media[]; described: Pick<Media, 'id' | 'description' | 'focus'>[] };

/** The Note's attachments against the status's: the same file (by URL) is kept, described anew if need be; others are new items. */
function mediaChanges(read: ReadNote, status: Status, current: Map<string, Media>, at: string): MediaChanges {
  const byUrl = new Map([...current.values()].flatMap((m) => (m.remoteUrl ? [[m.remoteUrl, m] as const] : [])));
  const out: MediaChanges = { mediaIds: [], newRemoteMedia: [], described: [] };
  for (const a of read.attachments) {
    const kept = a.remoteUrl ? byUrl.get(a.remoteUrl) : undefined;
    if (kept) {
      out.mediaIds.push(kept.id);
      if (kept.description !== a.description || JSON.stringify(kept.focus) !== JSON.stringify(a.focus)) out.described.push({ id: kept.id, description: a.description, focus: a.focus });
      continue;
    }
    const media: Media = { ...a, id: newId(), accountId: status.accountId, statusId: status.id, fileKey: null, previewKey: null, fileSize: 0, small: null, state: 'ready', createdAt: at };
    out.newRemoteMedia.push(media);
    out.mediaIds.push(media.id);
  }
  return out;
}

export async function updateNote(received: Received, object: ApDocument): Promise<Outcome> {
  const read = readNote(object, received.actor);
  if (!read || !onActorsServer(received, read.uri)) return 'ignored';
  const updated = dateOf(object.updated);
  if (!updated) return 'ignored';
  const before = await editedStatus(read.uri, received.actor);
  if (!before) return 'ignored';
  // Never later than now: a clock ahead must not keep every later edit out.
  const editedAt = new Date(Math.min(updated.getTime(), Date.now())).toISOString();
  if (before.editedAt && Date.parse(before.editedAt) >= Date.parse(editedAt)) {
    // This very edit, stored by a delivery that died before its fan-out: finish that (nothing is written again).
    if (before.editedAt === editedAt) await fanOutEdit(before);
    return 'ignored';
  }

  const current = await mediaByIds(before.mediaIds);
  const media = mediaChanges(read, before, current, editedAt);
  const after: Status = {
    ...before,
    text: remoteStatusText(read.contentHtml),
    contentHtml: read.contentHtml,
    spoilerText: read.spoilerText,
    sensitive: read.sensitive,
    language: read.language,
    mentions: await mentionsOf(read.mentioned, true),
    tags: read.tags,
    tagNames: read.tagNames,
    emojis: read.emojis,
    mediaIds: media.mediaIds,
  };
  const oldPoll = before.pollId ? await pollById(before.pollId, true) : undefined;
  const written = await commitEdit(before, after, received.actor, { ...media, media: current, oldPoll, editedAt });
  // Another edit of the same status won meanwhile: the message is retried, and judged against that one.
  if (written === 'changed-meanwhile' || written === 'media-not-yours') throw new Error(`Update(Note) ${read.uri}: ${written}`);
  if (written === before) return 'ignored';
  log.info('remote status edited', { statusId: before.id, uri: read.uri });
  // New attachments are copied to our bucket as a Create's are (off this path; a failure leaves their remote URL).
  await requestAttachmentCopies(media.newRemoteMedia);
  await fanOutEdit(written);
  return 'applied';
}
