// A preview card's image: fetched through the address guard (unsigned, size-capped, as remote
// media is), decoded from its bytes whatever it claims to be, scaled to fit 400×400 (never
// enlarged; Mastodon's preview card style), re-encoded as JPEG without metadata, blurhashed,
// and stored in the media bucket. Any failure leaves the card without an image, never without a card.
import sharp from 'sharp';
import { sha256 } from '../crypto';
import { fetchMedia } from '../federation/fetch';
import { MAX_INPUT_PIXELS } from '../media/image';
import { blurhashOf } from '../media/processing';
import { previewCardImageKey, putMedia } from '../media/storage';
import { log } from '../log';

/** Mastodon's limit for a preview card's image. */
export const CARD_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
export const CARD_IMAGE_SIZE = 400;
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif']);

export type CardImage = { imageKey: string; blurhash: string; width: number; height: number };

/** Decodes, scales and encodes; undefined when the bytes are not an image we take. */
async function scaled(data: Buffer): Promise<{ jpeg: Buffer; width: number; height: number; blurhash: string } | undefined> {
  try {
    const meta = await sharp(data, { limitInputPixels: false }).metadata();
    if (!meta.format || !ACCEPTED_FORMATS.has(meta.format)) return undefined;
    if (!meta.width || !meta.height || meta.width * meta.height > MAX_INPUT_PIXELS) return undefined;
    const decode = () => sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 }).autoOrient();
    const { data: jpeg, info } = await decode()
      .resize(CARD_IMAGE_SIZE, CARD_IMAGE_SIZE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    return { jpeg, width: info.width, height: info.height, blurhash: await blurhashOf(sharp(jpeg)) };
  } catch {
    return undefined;
  }
}

/** Copies the card image at `imageUrl` into the bucket; undefined (logged) when it cannot be had. */
export async function copyCardImage(cardUrl: string, imageUrl: string): Promise<CardImage | undefined> {
  let data: Buffer;
  try {
    data = await fetchMedia(imageUrl, { maxBytes: CARD_IMAGE_MAX_BYTES, plainHttp: true });
  } catch (err) {
    log.info('cards: image not fetched', { cardUrl, imageUrl, err });
    return undefined;
  }
  const image = await scaled(data);
  if (!image) {
    log.info('cards: image not usable', { cardUrl, imageUrl });
    return undefined;
  }
  const imageKey = previewCardImageKey(sha256(cardUrl), 'jpg');
  await putMedia(imageKey, image.jpeg, 'image/jpeg');
  return { imageKey, blurhash: image.blurhash, width: image.width, height: image.height };
}
