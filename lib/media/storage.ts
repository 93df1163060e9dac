// Media objects in the S3 bucket, and the public URLs they are served from.
import { deleteObject, putObject } from '../aws/s3';
import { config } from '../config';
import { padId, secretToken } from '../ids';
import { log } from '../log';

export const mediaUrl = (key: string): string => `${config.mediaUrl}/${key}`;

/**
 * 16 random bytes (base64url, 22 characters) in every object key: the bucket serves its objects to anyone
 * holding the URL, and ids are time-ordered, so a key built from ids alone could be guessed (an attachment
 * uploaded but not yet posted, or posted only to followers). Keys are stored on the items that use them
 * (`fileKey`, `previewKey`, `avatarKey`, `headerKey`), so objects stored under older key shapes keep working.
 */
const randomPart = () => secretToken(16);

/**
 * A fresh object key for an account's avatar or header. Keys are never reused,
 * so objects can be cached forever and a new upload never races an old URL.
 */
export const profileImageKey = (kind: 'avatars' | 'headers', accountId: string, extension: string): string =>
  `accounts/${kind}/${padId(accountId)}/${randomPart()}.${extension}`;

/**
 * Stores an object as the bucket will serve it. S3 sends back the Content-Type and Content-Disposition stored
 * with the object and cannot add `X-Content-Type-Options: nosniff` (only a CDN in front can), so what is not an
 * image we re-encoded (audio and video, kept as uploaded) is stored with `attachment`: a browser that navigates
 * to it downloads it instead of rendering it, whatever it would sniff, while <audio> and <video> elements, which
 * ignore the disposition, still play it inline.
 */
export async function putMedia(key: string, data: Buffer, contentType: string): Promise<void> {
  await putObject({
    Bucket: config.mediaBucket,
    Key: key,
    Body: data,
    ContentType: contentType,
    CacheControl: 'public, max-age=31536000, immutable',
    ...(contentType.startsWith('image/') ? {} : { ContentDisposition: 'attachment' }),
  });
}

/** Removes objects no longer referenced; a failure leaves an orphan behind, never breaks the request. */
export async function deleteMediaQuietly(keys: (string | null | undefined)[]): Promise<void> {
  await Promise.all(
    keys
      .filter((k): k is string => typeof k === 'string' && k !== '')
      .map(async (Key) => {
        try {
          await deleteObject({ Bucket: config.mediaBucket, Key });
        } catch (err) {
          log.warn('media: delete failed', { key: Key, err });
        }
      }),
  );
}

/** Where a media attachment's files live: one folder per attachment, one object per style, each with its own random part. */
export const attachmentKey = (id: string, style: 'original' | 'small', extension: string): string =>
  `media_attachments/files/${padId(id)}/${style}/${randomPart()}.${extension}`;

/** A preview card's image (lib/cards/): one object per fetch, under the card URL's hash. */
export const previewCardImageKey = (urlHash: string, extension: string): string =>
  `preview_cards/images/${urlHash.slice(0, 2)}/${urlHash}/${randomPart()}.${extension}`;
