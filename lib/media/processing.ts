// Turns an uploaded media file into what is stored: images are decoded with
// sharp (the type is decided from the bytes, never the file name or declared
// type), auto-oriented, re-encoded without metadata, scaled as Mastodon scales
// its `original` and `small` styles, and blurhashed. Audio and video in the
// containers Mastodon accepts are kept as uploaded (there is no transcoder here)
// and become `unknown` attachments. Everything else is refused.
import { encode as blurhashEncode } from 'blurhash';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { uploadSizeLimit } from '../http/limits';
import { MAX_INPUT_PIXELS } from './image';
import { sniffAudioVideo } from './sniff';

/** Mastodon's `original` style: larger images are scaled down to this many pixels (3840×2160). */
export const ORIGINAL_MAX_PIXELS = 8_294_400;
/** Mastodon's `small` style: previews are scaled to at most this many pixels (640×360), aspect kept. */
export const SMALL_MAX_PIXELS = 230_400;
const BLURHASH_COMPONENTS = 4;
const BLURHASH_SOURCE_SIZE = 32;

export type StoredFile = { data: Buffer; contentType: string; extension: string };
export type StoredImage = StoredFile & { width: number; height: number };

export type ProcessedMedia =
  | { type: 'image'; original: StoredImage; small: StoredImage; blurhash: string }
  | { type: 'unknown'; original: StoredFile };

/** empty/type/corrupt: not a file we take; size: over the byte limit; dimensions: over the pixel limit. */
export type MediaProblem = 'empty' | 'type' | 'corrupt' | 'size' | 'dimensions';
export type MediaResult = { ok: true; media: ProcessedMedia; limitBytes: number } | { ok: false; problem: MediaProblem; limitBytes: number };

type Output = { format: 'jpeg' | 'png' | 'webp' | 'gif'; contentType: string; extension: string };
const JPEG: Output = { format: 'jpeg', contentType: 'image/jpeg', extension: 'jpg' };
const PNG: Output = { format: 'png', contentType: 'image/png', extension: 'png' };
const WEBP: Output = { format: 'webp', contentType: 'image/webp', extension: 'webp' };
const GIF: Output = { format: 'gif', contentType: 'image/gif', extension: 'gif' };

/**
 * Accepted image formats (as Mastodon: JPEG, PNG, GIF, WebP, HEIC/AVIF) and the
 * format family each is stored in. HEIF is converted to JPEG, as Mastodon does.
 * sharp also reads SVG, TIFF and raw pixel data: those are refused.
 */
const outputFor = (format: string | undefined, animated: boolean): Output | undefined => {
  switch (format) {
    case 'jpeg':
      return JPEG;
    case 'png':
      return PNG;
    case 'webp':
      return WEBP;
    case 'gif':
      // A still GIF becomes a PNG (as Mastodon); an animated one stays a GIF.
      return animated ? GIF : PNG;
    case 'heif':
      return JPEG;
    default:
      return undefined;
  }
};

const encodeAs = (pipeline: Sharp, output: Output): Sharp => {
  switch (output.format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 90, mozjpeg: true });
    case 'png':
      return pipeline.png({ compressionLevel: 9 });
    case 'webp':
      return pipeline.webp({ quality: 90 });
    case 'gif':
      return pipeline.gif();
  }
};

/** Scales (never enlarges) so that width × height stays within `pixels`, keeping the aspect ratio. */
const withinPixels = (width: number, height: number, pixels: number): { width: number; height: number } => {
  if (width * height <= pixels) return { width, height };
  const scale = Math.sqrt(pixels / (width * height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
};

/** sharp's own pixel limit is the last guard (e.g. orientation metadata that lied about the size). */
const isPixelLimit = (err: unknown) => err instanceof Error && /pixel limit/i.test(err.message);

export async function processMediaFile(data: Buffer): Promise<MediaResult> {
  // One limit for every kind of file: what an upload can carry through API Gateway and Lambda
  // (lib/http/limits.ts), not Mastodon's 16 MB and 40 MB, which no request here could bring.
  // The multipart parser already refused anything larger; this keeps the rule for other callers.
  const limitBytes = uploadSizeLimit();
  if (data.length === 0) return { ok: false, problem: 'empty', limitBytes };

  let meta: Metadata | undefined;
  try {
    // Reading the header decodes no pixels, so the pixel count is known before any decoding.
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    meta = undefined;
  }

  if (!meta) {
    const sniffed = sniffAudioVideo(data);
    if (!sniffed) return { ok: false, problem: 'type', limitBytes };
    if (data.length > limitBytes) return { ok: false, problem: 'size', limitBytes };
    return { ok: true, media: { type: 'unknown', original: { data, ...sniffed } }, limitBytes };
  }

  const pages = meta.format === 'gif' ? Math.max(1, meta.pages ?? 1) : 1;
  const animated = pages > 1;
  const output = outputFor(meta.format, animated);
  if (!output) return { ok: false, problem: 'type', limitBytes };
  if (data.length > limitBytes) return { ok: false, problem: 'size', limitBytes };
  const frameHeight = meta.pageHeight ?? meta.height ?? 0;
  const width = meta.width ?? 0;
  if (width === 0 || frameHeight === 0) return { ok: false, problem: 'corrupt', limitBytes };
  // Every frame of an animation is decoded, so the limit applies to all of them together.
  if (width * frameHeight * pages > MAX_INPUT_PIXELS) return { ok: false, problem: 'dimensions', limitBytes };

  try {
    return { ok: true, media: await processImage(data, output, animated), limitBytes };
  } catch (err) {
    return { ok: false, problem: isPixelLimit(err) ? 'dimensions' : 'corrupt', limitBytes };
  }
}

/** The BlurHash of an image (a still, decoded by `image`), from a 32-pixel thumbnail of it. */
export async function blurhashOf(image: Sharp): Promise<string> {
  const tiny = await image.resize(BLURHASH_SOURCE_SIZE, BLURHASH_SOURCE_SIZE, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return blurhashEncode(new Uint8ClampedArray(tiny.data), tiny.info.width, tiny.info.height, BLURHASH_COMPONENTS, BLURHASH_COMPONENTS);
}

async function processImage(data: Buffer, output: Output, animated: boolean): Promise<ProcessedMedia> {
  // failOn 'truncated': a cut-off file is refused rather than stored with a grey band.
  const decode = (opts: { animated: boolean }) =>
    sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated', animated: opts.animated, pages: opts.animated ? -1 : 1 });
  // EXIF orientation is applied to the pixels, and re-encoding drops EXIF, XMP and IPTC
  // (sharp keeps no metadata unless asked). Decoding the full image once here also
  // proves the file is not truncated or corrupt before anything is stored.
  const upright = await decode({ animated }).autoOrient().raw().toBuffer({ resolveWithObject: true });
  const { width, channels } = upright.info;
  const frameHeight = animated ? (upright.info.pageHeight ?? upright.info.height) : upright.info.height;

  const originalSize = withinPixels(width, frameHeight, ORIGINAL_MAX_PIXELS);
  const originalPipeline = animated
    ? decode({ animated: true })
    : sharp(upright.data, { raw: { width, height: frameHeight, channels } });
  const original = await encodeAs(
    originalSize.width === width ? originalPipeline : originalPipeline.resize(originalSize.width, originalSize.height, { fit: 'fill' }),
    output,
  ).toBuffer({ resolveWithObject: true });

  // The preview is a still (the first frame of an animation), in a still format.
  const smallOutput = output.format === 'gif' ? PNG : output;
  const firstFrame = () =>
    animated
      ? decode({ animated: false })
      : sharp(upright.data, { raw: { width, height: frameHeight, channels } });
  const smallSize = withinPixels(width, frameHeight, SMALL_MAX_PIXELS);
  const small = await encodeAs(firstFrame().resize(smallSize.width, smallSize.height, { fit: 'fill' }), smallOutput).toBuffer({
    resolveWithObject: true,
  });

  const blurhash = await blurhashOf(firstFrame());

  return {
    type: 'image',
    original: {
      data: original.data,
      contentType: output.contentType,
      extension: output.extension,
      width: original.info.width,
      height: animated ? (original.info.pageHeight ?? originalSize.height) : original.info.height,
    },
    small: { data: small.data, contentType: smallOutput.contentType, extension: smallOutput.extension, width: small.info.width, height: small.info.height },
    blurhash,
  };
}
