// Custom emoji (Mastodon's CustomEmoji): added by the operator from an image
// file, served from the media bucket, and rendered into the `emojis` of
// statuses and accounts whose text uses `:shortcode:` (lib/render/emoji.ts).
// This module is the image side (sharp), used by the operator CLI only.
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../media/image';
import { secretToken } from '../ids';

/** Mastodon's limits: 256 KB, PNG, GIF or WebP; shortcodes of at least 2 word characters (at most 100 here: they are key parts). */
export const EMOJI_MAX_BYTES = 256 * 1024;
export const EMOJI_SIZE = 128;
export const SHORTCODE = /^[a-zA-Z0-9_]{2,100}$/;

export type EmojiImages = { original: { data: Buffer; contentType: string; extension: string }; static: Buffer };
export type EmojiProblem = 'size' | 'type' | 'corrupt';

/** Validates and resizes an emoji image to fit 128×128 (animation kept for GIF/WebP), plus a static PNG. */
export async function processEmojiImage(data: Buffer): Promise<{ ok: true; images: EmojiImages } | { ok: false; problem: EmojiProblem }> {
  if (data.length > EMOJI_MAX_BYTES) return { ok: false, problem: 'size' };
  let format: string | undefined;
  let pixels = 0;
  try {
    const meta = await sharp(data, { limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  } catch {
    return { ok: false, problem: 'type' };
  }
  if (format !== 'png' && format !== 'gif' && format !== 'webp') return { ok: false, problem: 'type' };
  if (pixels === 0 || pixels > MAX_INPUT_PIXELS) return { ok: false, problem: 'corrupt' };
  const fit = { width: EMOJI_SIZE, height: EMOJI_SIZE, fit: 'inside' as const, withoutEnlargement: true };
  try {
    const animated = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: format !== 'png' }).resize(fit);
    const original =
      format === 'gif'
        ? { data: await animated.gif().toBuffer(), contentType: 'image/gif', extension: 'gif' }
        : format === 'webp'
          ? { data: await animated.webp().toBuffer(), contentType: 'image/webp', extension: 'webp' }
          : { data: await animated.png().toBuffer(), contentType: 'image/png', extension: 'png' };
    const still = await sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 }).resize(fit).png().toBuffer();
    return { ok: true, images: { original, static: still } };
  } catch {
    return { ok: false, problem: 'corrupt' };
  }
}

/** Object keys of a new emoji; fresh per upload so URLs can be cached forever. */
export const emojiKeys = (shortcode: string, extension: string) => {
  const token = secretToken(9);
  return { key: `custom_emojis/${token}/${shortcode}.${extension}`, staticKey: `custom_emojis/${token}/${shortcode}-static.png` };
};
