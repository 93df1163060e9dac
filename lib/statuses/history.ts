// The versions of a status (GET /api/v1/statuses/:id/history) and the version a status makes as it
// stands: apart from ./edit.ts, whose edits re-run the posting pipeline (status text, mentions), so
// that reading the history carries none of it.
import { mediaByIds, type Media } from '../db/media';
import { pollById, type Poll } from '../db/polls';
import { statusEditsOf, type StatusEdit } from '../db/status_edits';
import type { Status } from '../db/statuses';
import { newId } from '../ids';

/** A version of the status as it stands, for its history. */
export function versionOf(status: Status, at: string, media: Map<string, Pick<Media, 'description'>>, poll: Pick<Poll, 'options'> | undefined): StatusEdit {
  return {
    id: newId(new Date(at)),
    statusId: status.id,
    accountId: status.accountId,
    createdAt: at,
    text: status.text,
    contentHtml: status.contentHtml,
    spoilerText: status.spoilerText,
    sensitive: status.sensitive,
    mediaIds: status.mediaIds,
    mediaDescriptions: status.mediaIds.map((id) => media.get(id)?.description ?? null),
    pollOptions: poll ? poll.options.map((o) => o.title) : null,
  };
}

/** Every version of a status, oldest first; one never edited has one, itself (as Mastodon answers). */
export async function statusHistory(status: Status): Promise<StatusEdit[]> {
  const versions = await statusEditsOf(status.id);
  if (versions.length > 0) return versions;
  const [media, poll] = await Promise.all([mediaByIds(status.mediaIds), status.pollId ? pollById(status.pollId) : Promise.resolve(undefined)]);
  return [versionOf(status, status.createdAt, media, poll)];
}
