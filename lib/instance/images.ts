// The default avatar and header (Mastodon's /avatars/original/missing.png and
// /headers/original/missing.png), drawn with sharp once per container.
import sharp from 'sharp';
import { AVATAR_SIZE, HEADER_SIZE } from '../media/image';

export type DefaultImage = 'avatar' | 'header';

/** Plain tinted images of the sizes uploads are cropped to. */
const SPECS: Record<DefaultImage, { width: number; height: number; background: { r: number; g: number; b: number } }> = {
  avatar: { ...AVATAR_SIZE, background: { r: 0x63, g: 0x64, b: 0xff } },
  header: { ...HEADER_SIZE, background: { r: 0x28, g: 0x2c, b: 0x37 } },
};

const cache = new Map<DefaultImage, Promise<Buffer>>();

const draw = (kind: DefaultImage) => {
  const { width, height, background } = SPECS[kind];
  return sharp({ create: { width, height, channels: 3, background } }).png({ compressionLevel: 9 }).toBuffer();
};

export function defaultImage(kind: DefaultImage): Promise<Buffer> {
  let image = cache.get(kind);
  if (!image) {
    image = draw(kind);
    // A failed draw is not cached, so the next request tries again.
    image.catch(() => cache.delete(kind));
    cache.set(kind, image);
  }
  return image;
}

export const DEFAULT_IMAGE_CACHE_CONTROL = 'public, max-age=86400';
