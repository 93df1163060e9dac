// Media attachments. The item schema is the contract between the media
// endpoints (which create and process them) and status creation (which attaches them).
import { z } from 'zod';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { batchGet, deleteItem, getItem, putItem, setAttributes, updateItem, type TransactItem } from './table';

const dimensions = z.object({ width: z.number().int(), height: z.number().int() });

export const mediaItem = z.object({
  id: z.string(),
  accountId: z.string(),
  /** `image` for an understood image; `unknown` when the file is not understood (kept, as Mastodon does). */
  type: z.enum(['image', 'gifv', 'video', 'audio', 'unknown']),
  /** S3 keys of the stored original and preview (null while processing or when absent). */
  fileKey: z.string().nullable().default(null),
  previewKey: z.string().nullable().default(null),
  contentType: z.string().nullable().default(null),
  fileSize: z.number().int().default(0),
  original: dimensions.nullable().default(null),
  small: dimensions.nullable().default(null),
  focus: z.object({ x: z.number(), y: z.number() }).nullable().default(null),
  description: z.string().nullable().default(null),
  blurhash: z.string().nullable().default(null),
  /** Set once attached to a status; an attached attachment cannot be attached again or edited through PUT. */
  statusId: z.string().nullable().default(null),
  /** `processing` answers 202 on POST /api/v2/media until the worker finishes. */
  state: z.enum(['processing', 'ready', 'failed']).default('ready'),
  /** A remote attachment: where it lives on its server (rendered as `remote_url`, and as `url` until fetched). */
  remoteUrl: z.string().nullable().default(null),
  /**
   * The address guard refused `remoteUrl` (at receipt by its form, or when the copy was fetched: a name that
   * resolves inside, a redirect there): it is never rendered, and the attachment shows as missing.
   */
  remoteUrlRefused: z.boolean().default(false),
  createdAt: z.string(),
});
export type Media = z.infer<typeof mediaItem>;

export const mediaById = (id: string) => getItem(keys.media(id), mediaItem);

export async function mediaByIds(ids: string[]): Promise<Map<string, Media>> {
  const found = await batchGet(ids.map(keys.media), mediaItem);
  const byId = new Map<string, Media>();
  for (const m of found.values()) byId.set(m.id, m);
  return byId;
}

/**
 * Transaction entries that attach the caller's own, unattached, processed
 * attachments to a status; any foreign, attached, missing or unfinished one
 * fails the whole transaction.
 */
export const attachMediaItems = (statusId: string, accountId: string, mediaIds: string[]): TransactItem[] =>
  mediaIds.map((id) => ({
    Update: {
      Key: keys.media(id),
      UpdateExpression: 'SET statusId = :s',
      ConditionExpression: 'attribute_exists(PK) AND accountId = :a AND (attribute_not_exists(statusId) OR statusId = :none) AND #state = :ready',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':s': statusId, ':a': accountId, ':none': null, ':ready': 'ready' },
    },
  }));

/** Transaction entries that free a deleted status's attachments, so delete-and-redraft can attach them again. */
export const releaseMediaItems = (statusId: string, mediaIds: string[]): TransactItem[] =>
  mediaIds.map((id) => ({
    Update: {
      Key: keys.media(id),
      UpdateExpression: 'SET statusId = :none',
      ConditionExpression: 'statusId = :s',
      ExpressionAttributeValues: { ':s': statusId, ':none': null },
    },
  }));

/** A remote status's attachment, written in the transaction that stores the status (lib/db/status_writes.ts). */
export const putRemoteMedia = (media: Media): TransactItem => ({
  Put: { Item: { ...keys.media(media.id), ...mediaItem.parse(media) }, ConditionExpression: 'attribute_not_exists(PK)' },
});

/** A deleted remote status's attachments go with it: nothing else may attach them. */
export const deleteRemoteMediaItems = (statusId: string, mediaIds: string[]): TransactItem[] =>
  mediaIds.map((id) => ({ Delete: { Key: keys.media(id), ConditionExpression: 'statusId = :s', ExpressionAttributeValues: { ':s': statusId } } }));

/** A new attachment; its files are already stored, so the item is only written once complete. */
export async function createMedia(media: z.input<typeof mediaItem>): Promise<boolean> {
  return putItem(uploadRecord(mediaItem.parse(media)), { ifAbsent: true });
}

/** A local upload's item, listed under its uploader (GSI1 `UPLOADS#`): how the purge of the account finds the ones never posted. */
export const uploadRecord = (media: Media) => ({ ...keys.media(media.id), ...gsi1.upload(media.accountId, media.id), ...media });

/**
 * Deletes the caller's own attachment while it is unattached (DELETE /api/v1/media/:id, and a status deleted
 * with `delete_media`); answers the deleted item, whose files the caller removes, or undefined when it is
 * missing, foreign or attached (meanwhile: a redraft may have taken it).
 */
export const deleteUnattachedMedia = (id: string, accountId: string): Promise<Media | undefined> =>
  deleteItem(keys.media(id), mediaItem, {
    ConditionExpression: 'attribute_exists(PK) AND accountId = :a AND (attribute_not_exists(statusId) OR statusId = :none)',
    ExpressionAttributeValues: { ':a': accountId, ':none': null },
  });

export type MediaDetails = { description?: string | null; focus?: { x: number; y: number } | null };

/**
 * Changes the description and focus of the caller's own attachment while it is
 * unattached; undefined when it is missing, foreign or already attached.
 */
export async function updateMediaDetails(id: string, accountId: string, details: MediaDetails): Promise<Media | undefined> {
  const sets: string[] = [];
  const values: Record<string, unknown> = { ':a': accountId, ':none': null };
  if (details.description !== undefined) {
    sets.push('description = :d');
    values[':d'] = details.description;
  }
  if (details.focus !== undefined) {
    sets.push('focus = :f');
    values[':f'] = details.focus;
  }
  // With nothing to change, a no-op SET still checks ownership in the same single call.
  if (sets.length === 0) sets.push('accountId = :a');
  return updateItem(
    {
      Key: keys.media(id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK) AND accountId = :a AND (attribute_not_exists(statusId) OR statusId = :none)',
      ExpressionAttributeValues: values,
    },
    mediaItem,
  );
}

/**
 * Records that the guard refused to fetch a remote attachment's file, once: only while the attachment still
 * exists, still points at `remoteUrl` and has no copy. From then on its URL is not shown (lib/render/attachment.ts).
 */
export async function markRemoteUrlRefused(id: string, remoteUrl: string): Promise<void> {
  await updateItem(
    {
      Key: keys.media(id),
      UpdateExpression: 'SET remoteUrlRefused = :yes',
      ConditionExpression: 'attribute_exists(PK) AND remoteUrl = :remoteUrl AND (attribute_not_exists(fileKey) OR fileKey = :none)',
      ExpressionAttributeValues: { ':yes': true, ':remoteUrl': remoteUrl, ':none': null },
    },
    mediaItem,
  );
}

/** What copying a remote attachment into our bucket decided (lib/media/remote.ts). */
export type RemoteMediaFiles = Pick<Media, 'type' | 'fileKey' | 'previewKey' | 'contentType' | 'fileSize' | 'original' | 'small' | 'blurhash'>;

/**
 * Records the copy of a remote attachment, once: only while the attachment still exists (its status may have
 * been deleted meanwhile), still points at `remoteUrl`, and has no copy yet. False when it did not apply: the
 * caller removes the objects it stored, which nothing references.
 */
export async function setRemoteMediaFiles(id: string, remoteUrl: string, files: RemoteMediaFiles): Promise<boolean> {
  const set = setAttributes(files)!;
  const updated = await updateItem(
    {
      Key: keys.media(id),
      ...set,
      ConditionExpression: 'attribute_exists(PK) AND remoteUrl = :remoteUrl AND (attribute_not_exists(fileKey) OR fileKey = :none)',
      ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':remoteUrl': remoteUrl, ':none': null },
    },
    mediaItem,
  );
  return updated !== undefined;
}
