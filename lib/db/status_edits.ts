// Edited statuses (Mastodon's StatusEdit): every version of a status once it is
// edited, the original included, under the status's own partition, oldest
// first; and the one transaction that applies an edit (lib/statuses/edit.ts
// holds the rules): the status's edited attributes, the new versions, what the
// edit attaches, releases or describes, its new poll, and the public and tag
// entries its new tags and media call for. Nothing is half-written: an edit
// that lost a race with another (the status's `editedAt` moved) writes nothing.
import { z } from 'zod';
import * as keys from './keys';
import { attachMediaItems, putRemoteMedia, releaseMediaItems, type Media } from './media';
import { deletePollItems, pollExpiryRecord, pollRecord, type Poll } from './polls';
import { searchIndexRecords } from './search';
import { assertItemFits } from './item_size';
import { statusItem, statusRecord, type Status } from './statuses';
import { batchGet, batchWrite, keyString, query, queryAll, setAttributes, transact, type Item, type TransactItem } from './table';
import { publicEntryRecords } from './timelines';

/** DynamoDB's transaction limit; entries past it are written right after, as posting does. */
const MAX_TRANSACTION_ITEMS = 100;

export const statusEditItem = z.object({
  id: z.string(),
  statusId: z.string(),
  accountId: z.string(),
  /** When this version was published: the status's creation for the original, the edit's time after. */
  createdAt: z.string(),
  text: z.string().default(''),
  contentHtml: z.string().default(''),
  spoilerText: z.string().default(''),
  sensitive: z.boolean().default(false),
  mediaIds: z.array(z.string()).default([]),
  /** Each attachment's description at this version, in `mediaIds` order. */
  mediaDescriptions: z.array(z.string().nullable()).default([]),
  /** The poll's option titles at this version; null without a poll. */
  pollOptions: z.array(z.string()).nullable().default(null),
});
export type StatusEdit = z.infer<typeof statusEditItem>;

const editRecord = (edit: StatusEdit) => ({ ...keys.statusEdit(edit.statusId, edit.id), ...statusEditItem.parse(edit) });

/** Every version of a status, oldest first; empty for a status never edited. */
export const statusEditsOf = (statusId: string): Promise<StatusEdit[]> =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.statusEditsPartition(statusId) } }, statusEditItem);

/** Whether a status has a history yet (its first edit must store the original too): one item read at most. */
export async function hasStatusEdits(statusId: string): Promise<boolean> {
  const page = await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.statusEditsPartition(statusId) }, Limit: 1 }, statusEditItem);
  return page.items.length > 0;
}

/** The attributes an edit may change; the counters and everything else stay as they are (a favourite meanwhile counts). */
const EDITABLE = ['text', 'contentHtml', 'spoilerText', 'sensitive', 'language', 'mentions', 'tags', 'tagNames', 'emojis', 'mediaIds', 'pollId', 'editedAt'] as const;

/** Sets the edited attributes, only while the status is still the author's and still at the version that was read. */
function updateStatusItem(before: Status, after: Status): TransactItem {
  const parsed = statusItem.parse(after);
  const set = setAttributes(Object.fromEntries(EDITABLE.map((k) => [k, parsed[k]])))!;
  const unchanged = before.editedAt === null ? '(attribute_not_exists(#ed) OR attribute_type(#ed, :nullType))' : '#ed = :prevEdited';
  return {
    Update: {
      Key: keys.status(before.id),
      ...set,
      ConditionExpression: `attribute_exists(PK) AND #author = :author AND ${unchanged}`,
      ExpressionAttributeNames: { ...set.ExpressionAttributeNames, '#ed': 'editedAt', '#author': 'accountId' },
      ExpressionAttributeValues: {
        ...set.ExpressionAttributeValues,
        ':author': before.accountId,
        ...(before.editedAt === null ? { ':nullType': 'NULL' } : { ':prevEdited': before.editedAt }),
      },
    },
  };
}

/** New descriptions (and focus) of attachments the status keeps: only while they are still its own. */
const describeMediaItem = (statusId: string, media: Pick<Media, 'id' | 'description' | 'focus'>): TransactItem => ({
  Update: {
    Key: keys.media(media.id),
    UpdateExpression: 'SET description = :d, focus = :f',
    ConditionExpression: 'statusId = :s',
    ExpressionAttributeValues: { ':d': media.description, ':f': media.focus, ':s': statusId },
  },
});

export type StatusEditWrite = {
  before: Status;
  after: Status;
  /** The versions to add: the original (on the first edit) and this edit's. */
  versions: StatusEdit[];
  /** Local attachments newly attached, and those the edit leaves out (released). */
  attach?: string[];
  release?: string[];
  /** A remote status's attachments that are new in this edit (items naming the status). */
  newRemoteMedia?: Media[];
  /** Attachments kept whose description or focus changed. */
  described?: Pick<Media, 'id' | 'description' | 'focus'>[];
  /** The poll replaced (its votes no longer count) and the poll that replaces it. */
  removedPoll?: Poll;
  newPoll?: Poll;
  /** Whether the status is in the public and hashtag timelines (lib/policy decides; an edit does not change its visibility). */
  listed: boolean;
};

export type StatusEditFailure = 'changed-meanwhile' | 'media-not-yours';

/** Public and tag entries to put (new tags, or all when the media flag moved) and to delete (tags dropped). */
function entryChanges(w: StatusEditWrite): { puts: (Item & { PK: string; SK: string })[]; deletes: { PK: string; SK: string }[] } {
  const before = publicEntryRecords(w.before, w.before.mediaIds.length > 0, w.listed);
  const after = publicEntryRecords(w.after, w.after.mediaIds.length > 0, w.listed);
  const mediaMoved = (w.before.mediaIds.length > 0) !== (w.after.mediaIds.length > 0);
  const had = new Set(before.map(keyString));
  const has = new Set(after.map(keyString));
  return {
    puts: after.filter((e) => mediaMoved || !had.has(keyString(e))),
    deletes: before.filter((e) => !has.has(keyString(e))).map((e) => ({ PK: e.PK, SK: e.SK })),
  };
}

/**
 * Applies an edit in one transaction (entries past the transaction limit right after). Answers a named
 * failure when the status was edited or deleted meanwhile, or a newly attached file is not the author's to attach.
 */
export async function writeStatusEdit(w: StatusEditWrite): Promise<{ ok: true } | { failed: StatusEditFailure }> {
  const attach = w.attach ?? [];
  // The status is updated, not put: the item it becomes is measured here (ItemTooLarge), as a Put's is in ./table.ts.
  assertItemFits(statusRecord(w.after));
  const items: TransactItem[] = [
    updateStatusItem(w.before, w.after),
    ...w.versions.map((v): TransactItem => ({ Put: { Item: editRecord(v), ConditionExpression: 'attribute_not_exists(PK)' } })),
  ];
  const attachAt = items.length;
  items.push(...attachMediaItems(w.after.id, w.after.accountId, attach));
  items.push(...releaseMediaItems(w.after.id, w.release ?? []));
  items.push(...(w.newRemoteMedia ?? []).map(putRemoteMedia));
  items.push(...(w.described ?? []).map((m) => describeMediaItem(w.after.id, m)));
  if (w.removedPoll) items.push(...deletePollItems(w.removedPoll));
  if (w.newPoll) items.push({ Put: { Item: pollRecord(w.newPoll) } }, { Put: { Item: pollExpiryRecord(w.newPoll) } });
  const entries = entryChanges(w);
  const changes: TransactItem[] = [...entries.puts.map((Item): TransactItem => ({ Put: { Item } })), ...entries.deletes.map((Key): TransactItem => ({ Delete: { Key } }))];
  const room = MAX_TRANSACTION_ITEMS - items.length;
  items.push(...changes.slice(0, room));

  const result = await transact(items);
  if (!result.ok) {
    if (result.failed.some((i) => i >= attachAt && i < attachAt + attach.length)) return { failed: 'media-not-yours' };
    return { failed: 'changed-meanwhile' };
  }
  const overflow = changes.slice(room);
  if (overflow.length > 0) {
    await batchWrite(
      overflow.flatMap((c) => (c.Put ? [c.Put.Item as Item & { PK: string; SK: string }] : [])),
      overflow.flatMap((c) => (c.Delete ? [c.Delete.Key as { PK: string; SK: string }] : [])),
    );
  }
  return { ok: true };
}

/** The search index follows the edit: the new words are written, the words it dropped removed. */
export async function reindexEditedStatus(before: Status, after: Status, shared: boolean): Promise<void> {
  const now = searchIndexRecords(after, shared);
  const kept = new Set(now.map(keyString));
  const dropped = searchIndexRecords(before, shared)
    .filter((r) => !kept.has(keyString(r)) && r.PK !== keys.tagNamesPartition())
    .map((r) => ({ PK: r.PK, SK: r.SK }));
  if (now.length > 0 || dropped.length > 0) await batchWrite(now, dropped);
}

/** Of `ownerIds`, those whose home feed holds the status (an edit is streamed to them): one batch read. */
export async function ownersHolding(ownerIds: string[], statusId: string): Promise<string[]> {
  if (ownerIds.length === 0) return [];
  const found = await batchGet([...new Set(ownerIds)].map((owner) => keys.homeEntry(owner, statusId)), z.object({ PK: z.string() }), 'PK, SK');
  return ownerIds.filter((owner) => found.has(keyString(keys.homeEntry(owner, statusId))));
}
