// Decoding and re-encoding uploaded profile images with sharp. Every upload is
// decoded from its bytes (never trusted by its declared type), auto-oriented by
// its EXIF tag, cropped to the target size and re-encoded, which drops all
// metadata (EXIF GPS and camera data included).
import sharp from 'sharp';

/** Mastodon's limit for avatars and headers. */
export const PROFILE_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
/** 7680×4320: larger inputs are refused before decoding (decompression bombs). */
export const MAX_INPUT_PIXELS = 33_177_600;

export type ImageSize = { width: number; height: number };
export const AVATAR_SIZE: ImageSize = { width: 400, height: 400 };
export const HEADER_SIZE: ImageSize = { width: 1500, height: 500 };

export type ProcessedImage = { data: Buffer; contentType: string; extension: string; width: number; height: number };
export type ImageProblem = 'type' | 'size' | 'dimensions' | 'corrupt';
export type ImageResult = { ok: true; image: ProcessedImage } | { ok: false; problem: ImageProblem };

/** Input formats accepted, as Mastodon (JPEG, PNG, GIF, WebP), and what each is re-encoded to. */
const OUTPUT: Record<string, { format: 'jpeg' | 'png' | 'webp'; contentType: string; extension: string }> = {
  jpeg: { format: 'jpeg', contentType: 'image/jpeg', extension: 'jpg' },
  png: { format: 'png', contentType: 'image/png', extension: 'png' },
  // Animation is not kept: the first frame becomes a static PNG, so avatar and avatar_static are the same image.
  gif: { format: 'png', contentType: 'image/png', extension: 'png' },
  webp: { format: 'webp', contentType: 'image/webp', extension: 'webp' },
};

const decoder = (data: Buffer) => sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 });

/** Crops (cover) an uploaded image to `size`; a problem instead when it is not an acceptable image. */
export async function processProfileImage(data: Buffer, size: ImageSize): Promise<ImageResult> {
  if (data.length > PROFILE_IMAGE_MAX_BYTES) return { ok: false, problem: 'size' };
  let format: string | undefined;
  let pixels = 0;
  try {
    const meta = await sharp(data, { limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  } catch {
    return { ok: false, problem: 'type' };
  }
  const output = format ? OUTPUT[format] : undefined;
  if (!output) return { ok: false, problem: 'type' };
  if (pixels === 0 || pixels > MAX_INPUT_PIXELS) return { ok: false, problem: 'dimensions' };
  try {
    const pipeline = decoder(data).autoOrient().resize(size.width, size.height, { fit: 'cover', position: 'centre' });
    const encoded =
      output.format === 'jpeg'
        ? pipeline.jpeg({ quality: 85, mozjpeg: true })
        : output.format === 'png'
          ? pipeline.png({ compressionLevel: 9 })
          : pipeline.webp({ quality: 85 });
    const { data: out, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { ok: true, image: { data: out, contentType: output.contentType, extension: output.extension, width: info.width, height: info.height } };
  } catch {
    return { ok: false, problem: 'corrupt' };
  }
}
