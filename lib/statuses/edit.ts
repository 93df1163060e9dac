// Editing a status (Mastodon's UpdateStatusService), and what every edit shares
// with one received from another server (lib/inbox/update_note.ts): the new
// version is checked by the rules of posting and rendered by the same text
// pipeline (mentions, tags), every version is kept (the first edit stores the
// original too), and one transaction writes it (lib/db/status_edits.ts). Then,
// through the fan-out queue, whoever has the status hears of it (`status.update`
// on the streams that carried it), the local accounts that reblogged it are
// notified, and our own status goes out as an Update(Note).
import type { Account } from '../db/accounts';
import { mediaByIds, type Media } from '../db/media';
import { pollById, type Poll } from '../db/polls';
import { hasStatusEdits, reindexEditedStatus, writeStatusEdit, type StatusEditWrite } from '../db/status_edits';
import { statusById, type QuotePolicy, type Status } from '../db/statuses';
import { setQuotePolicy } from '../db/quotes';
import { nowIso } from '../db/table';
import { notFound, unprocessable } from '../errors';
import { isId } from '../ids';
import { log } from '../log';
import { listedInPublicTimelines, searchableByAnyone } from '../policy';
import { enqueue } from '../queue';
import { hashtagSpellings, mentionedAccounts, statusToHtml } from '../text/status';
import { tagged } from '../text/tags';
import { checkMedia, checkRules, newPoll, resolveMentions, usableText, type NewStatus } from './create';
import { versionOf } from './history';
import { storedQuotePolicy } from './quotes';

/**
 * An edit, as Mastodon's PUT takes it: the new version whole. Text, content warning, sensitivity, attachments
 * and poll not given are none (a client sends what it keeps); only the language stays when not given.
 */
export type StatusChanges = {
  status?: string;
  spoilerText: string;
  sensitive?: boolean;
  language?: string;
  mediaIds: string[];
  /** New description and focus of attachments the edited status has (`media_attributes[]`). */
  mediaAttributes?: { id: string; description?: string | null; focus?: { x: number; y: number } | null }[];
  /** The poll: the same options (and kind) keep it and its votes; others replace it, votes reset; absent removes it. */
  poll?: NewStatus['poll'];
  /** Who may quote it from now on (Mastodon 4.5 takes it on edit); absent leaves it. */
  quoteApprovalPolicy?: QuotePolicy;
};

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`);

/** The edit's poll: the old one when its options and kind are the same (votes kept); else a new one (no votes), or none. */
function nextPoll(status: Status, old: Poll | undefined, checked: ReturnType<typeof checkRules>['poll']): Poll | undefined | 'unchanged' {
  if (!checked) return old ? undefined : 'unchanged';
  const sameOptions = old && old.options.length === checked.options.length && old.options.every((o, i) => o.title === checked.options[i]);
  if (old && sameOptions && old.multiple === checked.multiple) return 'unchanged';
  return newPoll(status.id, status.accountId, checked, nowIso());
}

/** The attachments whose description or focus `changes` sets, among those the edited status has. */
function describedMedia(media: Map<string, Media>, mediaIds: string[], attributes: StatusChanges['mediaAttributes']): Pick<Media, 'id' | 'description' | 'focus'>[] {
  const out: Pick<Media, 'id' | 'description' | 'focus'>[] = [];
  for (const attr of attributes ?? []) {
    const current = media.get(attr.id);
    if (!current || !mediaIds.includes(attr.id)) continue;
    const description = attr.description !== undefined ? attr.description : current.description;
    const focus = attr.focus !== undefined ? attr.focus : current.focus;
    if (description !== current.description || JSON.stringify(focus) !== JSON.stringify(current.focus)) out.push({ id: attr.id, description, focus });
  }
  return out;
}

/** `author` edits its own status `statusId`; answers the status as edited (unchanged when nothing changed). */
export async function editStatus(author: Account, statusId: string, changes: StatusChanges): Promise<Status> {
  const before = isId(statusId) ? await statusById(statusId, true) : undefined;
  if (!before || before.accountId !== author.id || before.reblogOfId || before.uri) throw notFound();
  const { mediaIds, spoilerText } = changes;
  const text = changes.status ?? '';
  const rules = checkRules({ status: text, spoilerText, mediaIds, language: changes.language, poll: changes.poll });
  const checked = { ...rules, text: await usableText(rules.text) };
  if (changes.mediaAttributes?.some((a) => !mediaIds.includes(a.id))) throw invalid('media_attributes must name attachments of the status');
  await checkMedia(author, mediaIds, before.id);
  const oldPoll = before.pollId ? await pollById(before.pollId, true) : undefined;

  const resolved = await resolveMentions(checked.text);
  const poll = nextPoll(before, oldPoll, checked.poll);
  const after: Status = {
    ...before,
    text,
    contentHtml: statusToHtml(checked.text, resolved),
    spoilerText,
    // A content warning always marks the status sensitive (Mastodon's Status#set_sensitive).
    sensitive: changes.sensitive === true || spoilerText !== '',
    language: changes.language?.toLowerCase() ?? before.language,
    mentions: mentionedAccounts(checked.text, resolved),
    ...tagged(hashtagSpellings(checked.text)),
    mediaIds,
    pollId: poll === 'unchanged' ? before.pollId : poll?.id ?? null,
  };
  const media = await mediaByIds([...new Set([...before.mediaIds, ...mediaIds])]);
  const described = describedMedia(media, mediaIds, changes.mediaAttributes);
  const written = await commitEdit(before, after, author, {
    attach: mediaIds.filter((id) => !before.mediaIds.includes(id)),
    release: before.mediaIds.filter((id) => !mediaIds.includes(id)),
    described,
    removedPoll: poll !== 'unchanged' ? oldPoll : undefined,
    newPoll: poll !== 'unchanged' ? poll : undefined,
    media,
    oldPoll,
  });
  if (written === 'media-not-yours') throw invalid('media_ids must name your own media attachments that are not attached to another status');
  if (written === 'changed-meanwhile') throw unprocessable('The status was changed meanwhile; try again');
  if (written !== before) await fanOutEditQuietly(written);
  return withQuotePolicy(written, changes.quoteApprovalPolicy);
}

/** The policy the edit sets, stored apart from the versions (it is not part of the history); the status as it then is. */
async function withQuotePolicy(status: Status, asked: QuotePolicy | undefined): Promise<Status> {
  if (asked === undefined) return status;
  const policy = storedQuotePolicy(asked, status.visibility);
  if (policy === (status.quoteApprovalPolicy ?? 'nobody')) return status;
  return (await setQuotePolicy(status.id, status.accountId, policy)) ?? status;
}

/** Whether an edit changes what a version records or what the status shows. */
function changesAnything(before: Status, after: Status, edit: Pick<StatusEditWrite, 'described' | 'newPoll' | 'removedPoll'>): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const fields = ['text', 'contentHtml', 'spoilerText', 'sensitive', 'language', 'mediaIds', 'tags', 'mentions'] as const;
  return fields.some((f) => !same(before[f], after[f])) || (edit.described?.length ?? 0) > 0 || edit.newPoll !== undefined || edit.removedPoll !== undefined;
}

export type EditParts = Omit<StatusEditWrite, 'before' | 'after' | 'versions' | 'listed'> & {
  /** The attachments of both versions (their descriptions are recorded in the history). */
  media: Map<string, Media>;
  oldPoll: Poll | undefined;
  /** When the edit was made: now for ours, the Note's `updated` for a remote one. */
  editedAt?: string;
};

/**
 * Writes an edit with its versions (the original too on the first), then re-indexes the status and asks the
 * fan-out to tell everyone who has it. Answers the status as written, `before` itself when nothing changed, or
 * a named failure. `after.editedAt` is set here.
 */
export async function commitEdit(before: Status, after: Status, author: Account, parts: EditParts): Promise<Status | 'changed-meanwhile' | 'media-not-yours'> {
  if (!changesAnything(before, after, parts)) return before;
  const editedAt = parts.editedAt ?? nowIso();
  const edited: Status = { ...after, editedAt };
  const described = new Map(parts.described?.map((m) => [m.id, m]) ?? []);
  const newMedia = new Map((parts.newRemoteMedia ?? []).map((m) => [m.id, m]));
  const mediaNow = new Map([...parts.media, ...newMedia, ...described].map(([id, m]) => [id, { description: m.description }]));
  const pollNow = parts.newPoll ?? (parts.removedPoll ? undefined : parts.oldPoll);
  const versions = [
    ...((await hasStatusEdits(before.id)) ? [] : [versionOf(before, before.createdAt, parts.media, parts.oldPoll)]),
    versionOf(edited, editedAt, mediaNow, pollNow),
  ];
  const listed = await listedInPublicTimelines(before, author);
  const { media: _media, oldPoll: _oldPoll, editedAt: _at, ...write } = parts;
  const result = await writeStatusEdit({ ...write, before, after: edited, versions, listed });
  if ('failed' in result) return result.failed;
  log.info('status edited', { statusId: edited.id, versions: versions.length });
  try {
    await reindexEditedStatus(before, edited, searchableByAnyone(edited));
  } catch (err) {
    log.error('search re-indexing after an edit failed', { statusId: edited.id, err });
  }
  return edited;
}

/** Streams, boosters' notifications and, for ours, the Update(Note): the fan-out worker's (lib/timelines/fanout_update.ts). */
export const fanOutEdit = (status: Pick<Status, 'id'>) => enqueue('fanout', { type: 'update', statusId: status.id });

/** A local edit stands even if the queue is briefly unavailable, as a post does. */
async function fanOutEditQuietly(status: Status): Promise<void> {
  try {
    await fanOutEdit(status);
  } catch (err) {
    log.error('enqueue after an edit failed', { statusId: status.id, err });
  }
}
