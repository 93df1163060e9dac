// The objects of one processed attachment in the bucket: its original and, for an
// image, its preview, each under a fresh key, and the fields of the Media item that
// name them. Uploads (./attachments.ts) and copies of other servers' files
// (./remote.ts) store what ./processing.ts made the same way.
import type { Media } from '../db/media';
import type { ProcessedMedia } from './processing';
import { attachmentKey, deleteMediaQuietly, putMedia } from './storage';

/** What a Media item records of its stored files. */
export type StoredFiles = Pick<Media, 'fileKey' | 'previewKey' | 'contentType' | 'fileSize' | 'original' | 'small' | 'blurhash'>;

/**
 * Stores the processed files of attachment `id`; answers the item's fields and the keys written. If one put
 * fails, what was stored is removed and the error thrown: nothing is left that no item names.
 */
export async function storeProcessedFiles(id: string, processed: ProcessedMedia): Promise<{ files: StoredFiles; keys: string[] }> {
  const image = processed.type === 'image' ? processed : undefined;
  const fileKey = attachmentKey(id, 'original', processed.original.extension);
  const previewKey = image ? attachmentKey(id, 'small', image.small.extension) : null;
  const objects = [{ key: fileKey, data: processed.original.data, contentType: processed.original.contentType }];
  if (image && previewKey) objects.push({ key: previewKey, data: image.small.data, contentType: image.small.contentType });

  const stored: string[] = [];
  try {
    for (const o of objects) {
      await putMedia(o.key, o.data, o.contentType);
      stored.push(o.key);
    }
  } catch (err) {
    await deleteMediaQuietly(stored);
    throw err;
  }
  return {
    keys: stored,
    files: {
      fileKey,
      previewKey,
      contentType: processed.original.contentType,
      fileSize: processed.original.data.length,
      original: image ? { width: image.original.width, height: image.original.height } : null,
      small: image ? { width: image.small.width, height: image.small.height } : null,
      blurhash: image ? image.blurhash : null,
    },
  };
}
