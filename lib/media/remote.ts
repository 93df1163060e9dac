// Copies of other servers' files: a remote status's attachment, a remote account's
// avatar or header, once fetched (lib/federation/remote_media.ts fetches them) are
// processed exactly as local uploads are (./processing.ts, ./image.ts: type from the
// bytes, size and pixel limits, re-encoded without metadata, previews and blurhash)
// and stored in the bucket under our own keys, so they are served from our media URL
// (Mastodon's MediaAttachment#file_remote_url and Account#avatar_remote_url).
import type { Media, RemoteMediaFiles } from '../db/media';
import { uploadSizeLimit } from '../http/limits';
import { AVATAR_SIZE, HEADER_SIZE, PROFILE_IMAGE_MAX_BYTES, processProfileImage, type ImageProblem } from './image';
import { processMediaFile, type MediaProblem, type ProcessedMedia } from './processing';
import { storeProcessedFiles } from './files';
import { profileImageKey, putMedia } from './storage';

/** `mismatch`: the file is not the kind of media its server said it was (an `Image` that is a video). */
export type RemoteFileProblem = MediaProblem | ImageProblem | 'mismatch';
export type Stored<T> = { ok: true; stored: T; keys: string[] } | { ok: false; problem: RemoteFileProblem };

/** The largest remote attachment taken: the instance's own media size limit, as for uploads. */
export const remoteAttachmentMaxBytes = (): number => uploadSizeLimit();
/** The largest remote avatar or header taken: Mastodon's limit for profile images, as for uploads. */
export const REMOTE_PROFILE_IMAGE_MAX_BYTES = PROFILE_IMAGE_MAX_BYTES;

/** The media family of a content type the processing decided from the bytes. */
const familyOf = (processed: ProcessedMedia): 'image' | 'video' | 'audio' | undefined => {
  if (processed.type === 'image') return 'image';
  const major = processed.original.contentType.split('/')[0];
  return major === 'video' || major === 'audio' ? major : undefined;
};

/**
 * The type the copy is shown as: what its server declared, when the bytes agree. A declared image must decode
 * as one; a declared video or audio must be one of the audio/video containers (an MP4 or WebM may hold either,
 * so the two are not told apart); an attachment of no declared kind takes the kind of its bytes.
 */
function typeOf(declared: Media['type'], processed: ProcessedMedia): Media['type'] | undefined {
  const family = familyOf(processed);
  if (!family) return undefined;
  if (declared === 'unknown') return family;
  if (declared === 'image') return family === 'image' ? 'image' : undefined;
  return family === 'image' ? undefined : declared;
}

/** Processes and stores a fetched remote attachment; the Media item is the caller's to update with the result. */
export async function storeRemoteAttachment(media: Pick<Media, 'id' | 'type'>, data: Buffer): Promise<Stored<RemoteMediaFiles>> {
  const result = await processMediaFile(data);
  if (!result.ok) return { ok: false, problem: result.problem };
  const processed = result.media;
  const type = typeOf(media.type, processed);
  if (!type) return { ok: false, problem: 'mismatch' };

  const { files, keys } = await storeProcessedFiles(media.id, processed);
  return { ok: true, keys, stored: { type, ...files } };
}

/** Processes (cropped as uploads are) and stores a fetched remote avatar or header; answers its object key. */
export async function storeRemoteProfileImage(accountId: string, image: 'avatar' | 'header', data: Buffer): Promise<Stored<string>> {
  const result = await processProfileImage(data, image === 'avatar' ? AVATAR_SIZE : HEADER_SIZE);
  if (!result.ok) return { ok: false, problem: result.problem };
  const key = profileImageKey(image === 'avatar' ? 'avatars' : 'headers', accountId, result.image.extension);
  await putMedia(key, result.image.data, result.image.contentType);
  return { ok: true, stored: key, keys: [key] };
}
