// A real JPEG of an exact byte size, for the upload limit's edges: a small picture encoded by sharp,
// grown with comment (COM) segments, which decoders skip. Building one costs a few milliseconds
// whatever the size, and the file still decodes and processes as the picture it carries.
import sharp from 'sharp';

/** A COM segment is FF FE, a 2-byte length that counts itself, then up to 65,533 bytes. */
const MAX_SEGMENT = 4 + 65_533;
const MIN_SEGMENT = 4;

function comment(size: number): Buffer {
  const segment = Buffer.alloc(size, 0x20);
  segment[0] = 0xff;
  segment[1] = 0xfe;
  segment.writeUInt16BE(size - 2, 2);
  return segment;
}

export async function paddedJpeg(bytes: number, colour = { r: 30, g: 140, b: 90 }): Promise<Buffer> {
  const picture = await sharp({ create: { width: 96, height: 64, channels: 3, background: colour } }).jpeg().toBuffer();
  let padding = bytes - picture.length;
  if (padding < MIN_SEGMENT) throw new Error(`a padded JPEG needs at least ${picture.length + MIN_SEGMENT} bytes`);
  const segments: Buffer[] = [];
  while (padding > 0) {
    let size = Math.min(padding, MAX_SEGMENT);
    // The last segment cannot be shorter than its own header: leave it at least that much.
    if (padding - size > 0 && padding - size < MIN_SEGMENT) size -= MIN_SEGMENT;
    segments.push(comment(size));
    padding -= size;
  }
  // After the SOI marker (FF D8), where comments may stand.
  const out = Buffer.concat([picture.subarray(0, 2), ...segments, picture.subarray(2)]);
  if (out.length !== bytes) throw new Error(`padded JPEG is ${out.length} bytes, not ${bytes}`);
  return out;
}
