// Media attachments (POST/PUT/GET/DELETE /api/v1/media): input rules, processing,
// storage, and the owner-only, unattached-only access Mastodon enforces.
//
// What is accepted (decided from the file's bytes, never its name or declared type):
// - JPEG, PNG, GIF, WebP and HEIF/AVIF images that sharp decodes → type `image`,
//   stored re-encoded (orientation applied, metadata dropped) with a preview and a blurhash;
// - audio and video in the containers Mastodon accepts (MP4/MOV, WebM, Ogg, MP3, AAC,
//   FLAC, WAV) → type `unknown`, stored as uploaded, `blurhash` null: this server has no
//   transcoder, so it keeps the file without understanding it (the spec's `unknown` case);
// - anything else (text, PDF, executables, SVG, TIFF, an empty file), and a file that looks
//   like an image but does not decode (truncated, corrupt) → 422
//   "Validation failed: File content type is invalid, File is invalid".
// Limits: what one request carries through API Gateway and Lambda for every kind of file (lib/http/limits.ts,
// about 4.5 MB, lowered per stage by MEDIA_SIZE_LIMIT), where Mastodon has 16 MB for images and 40 MB for
// audio/video; 33,177,600 decoded pixels.
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { createMedia, deleteUnattachedMedia, mediaById, updateMediaDetails, type Media, type MediaDetails } from '../db/media';
import { nowIso } from '../db/table';
import { notFound, unprocessable, HttpError } from '../errors';
import { isUploadedFile } from '../http/body';
import { describeBytes, uploadSizeLimit } from '../http/limits';
import { isId, newId } from '../ids';
import { log } from '../log';
import { MAX_INPUT_PIXELS } from './image';
import { processMediaFile, type MediaProblem } from './processing';
import { storeProcessedFiles } from './files';
import { deleteMediaQuietly } from './storage';
import { cappedText, RAW_CAPS } from '../text/limits';

/** Mastodon's limit on alternative text (lib/text/limits.ts; counted in code units, so it is also the raw cap). */
export const MAX_DESCRIPTION_LENGTH = RAW_CAPS.mediaDescription;

/**
 * Multipart limits for the upload endpoints: a file over the stage's upload limit is refused with 413 while
 * the body is parsed, before the request is authenticated or anything is stored.
 */
export const MEDIA_BODY_LIMITS = { maxFileBytes: uploadSizeLimit, maxFiles: 2 };

export const INVALID_FILE = 'Validation failed: File content type is invalid, File is invalid';
const NO_FILE = "Validation failed: File can't be blank";

const description = z.preprocess(
  // An empty description clears it, as a blank text field in a client means "none".
  (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
  cappedText(MAX_DESCRIPTION_LENGTH).nullable().optional(),
);

const FOCUS_RULE = 'must be two numbers from -1.0 to 1.0, as "x,y"';

/** `focus` is "x,y"; x runs left to right and y bottom to top, (0,0) the centre. */
const focus = z
  .string({ invalid_type_error: FOCUS_RULE })
  .transform((value, ctx) => {
    if (value.trim() === '') return undefined;
    const parts = value.split(',').map((p) => (p.trim() === '' ? Number.NaN : Number(p)));
    const [x, y] = parts;
    if (parts.length !== 2 || x === undefined || y === undefined || ![x, y].every((n) => Number.isFinite(n) && n >= -1 && n <= 1)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: FOCUS_RULE });
      return z.NEVER;
    }
    return { x, y };
  })
  .optional();

export const mediaCreateInput = z.object({
  // Checked in createAttachment, which answers Mastodon's texts for a missing or non-file value.
  file: z.unknown().optional(),
  // Custom thumbnails (for audio and video) are not supported; the field is accepted and ignored.
  thumbnail: z.unknown().optional(),
  description,
  focus,
});
export type MediaCreateInput = z.infer<typeof mediaCreateInput>;

export const mediaIdInput = z.object({ id: z.string() });

export const mediaUpdateInput = z.object({
  id: z.string(),
  thumbnail: z.unknown().optional(),
  description,
  focus,
});
export type MediaUpdateInput = z.infer<typeof mediaUpdateInput>;

function problemError(problem: MediaProblem, limitBytes: number): HttpError {
  switch (problem) {
    case 'size':
      return unprocessable(`Validation failed: File file size must be at most ${describeBytes(limitBytes)}`);
    case 'dimensions':
      return unprocessable(`Validation failed: File dimensions are too large (at most ${MAX_INPUT_PIXELS} pixels)`);
    default:
      return unprocessable(INVALID_FILE);
  }
}

/**
 * Processes and stores an upload, then records it. The item is written only once
 * every object is in the bucket; if anything fails, the stored objects are removed,
 * so there is never an item pointing at missing files.
 */
export async function createAttachment(account: Account, input: MediaCreateInput): Promise<Media> {
  if (input.file === undefined || input.file === null || input.file === '') throw unprocessable(NO_FILE);
  if (!isUploadedFile(input.file)) throw unprocessable(INVALID_FILE);

  const result = await processMediaFile(input.file.data);
  if (!result.ok) throw problemError(result.problem, result.limitBytes);
  const processed = result.media;

  const id = newId();
  const { files, keys } = await storeProcessedFiles(id, processed);
  const media: Media = {
    id,
    remoteUrl: null,
    remoteUrlRefused: false,
    accountId: account.id,
    type: processed.type,
    ...files,
    focus: input.focus ?? null,
    description: input.description ?? null,
    statusId: null,
    state: 'ready',
    createdAt: nowIso(),
  };
  try {
    if (!(await createMedia(media))) throw new Error(`media id collision: ${id}`);
  } catch (err) {
    log.error('media: storing an attachment failed', { err, mediaId: id });
    await deleteMediaQuietly(keys);
    throw err;
  }
  return media;
}

/** The caller's own attachment, while it is not attached to a status (Mastodon's rule for GET and PUT). */
export async function ownUnattachedMedia(account: Account, id: string): Promise<Media> {
  const media = isId(id) ? await mediaById(id) : undefined;
  if (!media || media.accountId !== account.id || media.statusId !== null) throw notFound();
  return media;
}

/** Description and focus of an unattached attachment of the caller's; 404 otherwise. */
export async function updateAttachment(account: Account, input: MediaUpdateInput): Promise<Media> {
  if (!isId(input.id)) throw notFound();
  const details: MediaDetails = {};
  if (input.description !== undefined) details.description = input.description;
  if (input.focus !== undefined) details.focus = input.focus;
  const updated = await updateMediaDetails(input.id, account.id, details);
  if (!updated) throw notFound();
  return updated;
}

/** Mastodon 4.4's answer to deleting an attachment that a status uses (Api::V1::MediaController#in_usage_error). */
export const MEDIA_IN_USE = 'Media attachment is currently used by a status';

/**
 * DELETE /api/v1/media/:id (Mastodon 4.4): the caller's own attachment and its files, while no status uses it.
 * Someone else's or a missing one is 404; one attached to a status 422, as Mastodon answers.
 */
export async function deleteAttachment(account: Account, id: string): Promise<void> {
  const media = isId(id) ? await mediaById(id) : undefined;
  if (!media || media.accountId !== account.id) throw notFound();
  if (media.statusId !== null) throw unprocessable(MEDIA_IN_USE);
  const deleted = await deleteUnattachedMedia(id, account.id);
  // Attached by a post between the read and the delete: in use now. Deleted by another request: gone.
  if (!deleted) throw (await mediaById(id)) ? unprocessable(MEDIA_IN_USE) : notFound();
  await deleteMediaQuietly([deleted.fileKey, deleted.previewKey]);
}

/**
 * A status deleted with `delete_media` (Mastodon 4.4): its attachments, just released by the delete, go with
 * their files at once instead of waiting for a redraft. One that a redraft attached meanwhile is kept.
 */
export async function deleteReleasedMedia(account: Account, mediaIds: string[]): Promise<void> {
  const deleted = await Promise.all(mediaIds.map((id) => deleteUnattachedMedia(id, account.id)));
  await deleteMediaQuietly(deleted.flatMap((m) => (m ? [m.fileKey, m.previewKey] : [])));
}

/** Mastodon answers 206 while an attachment is processing, 200 once it is ready, 422 when processing failed. */
export function attachmentStatus(media: Media): number {
  if (media.state === 'failed') throw unprocessable('Error processing thumbnail for uploaded media');
  return media.state === 'processing' ? 206 : 200;
}
