// POST /api/v1/media and POST /api/v2/media: real files through real API Gateway events,
// processed by sharp, stored in s3rver and recorded in dynalite.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { isBlurhashValid } from 'blurhash';
import sharp from 'sharp';
import { handler as createV1 } from '../../functions/media/create';
import { handler as createV2 } from '../../functions/media/create_v2';
import { dynamo } from '../../lib/aws';
import { s3 } from '../support/s3';
import { mediaById } from '../../lib/db/media';
import { MAX_UPLOAD_BYTES } from '../../lib/http/limits';
import { createAttachment } from '../../lib/media/attachments';
import { call } from '../support/http';
import { multipart, type Part } from '../support/multipart';
import { anAppToken, aUser } from '../support/factories';

// One account uploads far more than 30 times here; the upload limit itself is tested in ratelimit-api.test.ts.
process.env.RATE_LIMIT_FACTOR = '100';


const upload = async (token: string, parts: Record<string, Part>, version: 1 | 2 = 1) =>
  call(version === 1 ? createV1 : createV2, { method: 'POST', path: `/api/v${version}/media`, token, body: await multipart(parts) });

const solid = (width: number, height: number, background: { r: number; g: number; b: number; alpha?: number }) =>
  sharp({ create: { width, height, channels: background.alpha === undefined ? 3 : 4, background } });

async function fetchStored(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const data = Buffer.from(await res.arrayBuffer());
  return { contentType: res.headers.get('content-type'), data, meta: await sharp(data).metadata() };
}

async function storedObjectCount(): Promise<number> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: process.env.MEDIA_BUCKET!, Prefix: 'media_attachments/' }));
  return out.KeyCount ?? 0;
}

/** Test-only: how many attachment items exist (the app itself never scans). */
async function mediaItemCount(): Promise<number> {
  const out = await dynamo().scan({ TableName: process.env.TABLE_NAME!, FilterExpression: 'begins_with(PK, :p)', ExpressionAttributeValues: { ':p': 'MEDIA#' } });
  return out.Count ?? 0;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const keyUrl = (style: string, ext: string) =>
  new RegExp(`^${escapeRe(process.env.MEDIA_URL!)}/media_attachments/files/\\d{20}/${style}/[\\w-]{22}\\.${ext}$`);

/** A real PCM WAV file: 0.1 s of a 440 Hz tone. */
function wav(): Buffer {
  const rate = 8000;
  const samples = 800;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** An ID3v2.4 tag holding one text frame (TIT2), of `declared` bytes when given (the header's syncsafe size). */
function id3(title: string, declared?: number): Buffer {
  const text = Buffer.concat([Buffer.from([3]), Buffer.from(title, 'utf8')]);
  const frame = Buffer.concat([Buffer.from('TIT2', 'latin1'), Buffer.from([0, 0, (text.length >> 7) & 0x7f, text.length & 0x7f, 0, 0]), text]);
  const size = declared ?? frame.length;
  const header = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  return Buffer.concat([header, frame]);
}

/** `count` MPEG-1 Layer III frames, 128 kbps at 44.1 kHz without padding: 417 bytes each, header and silence. */
const mp3Frames = (count: number) =>
  Buffer.concat(Array.from({ length: count }, () => Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x44]), Buffer.alloc(413)])));

const HTML = Buffer.from('<html><body><script>alert(document.domain)</script></body></html>', 'utf8');

/** An ISO base media box. */
const box = (type: string, payload: Buffer) => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
};
/** An MP4's structure: ftyp (isom), a moov holding an mvhd, an mdat. */
const mp4 = () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2', 'latin1')), box('moov', box('mvhd', Buffer.alloc(100))), box('mdat', Buffer.alloc(2000, 7))]);

describe('POST /api/v1/media with images', () => {
  it('stores a PNG with transparency as a PNG original and preview, with meta, focus, description and blurhash', async () => {
    const { account, token } = await aUser();
    const png = await solid(800, 600, { r: 20, g: 120, b: 220, alpha: 0.5 }).png().toBuffer();
    const res = await upload(token, { file: { data: png, filename: 'shot.png', type: 'image/png' }, description: 'A blue pane', focus: '0.25,-0.5' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'image',
      remote_url: null,
      description: 'A blue pane',
      meta: { original: { width: 800, height: 600, size: '800x600', aspect: 800 / 600 }, focus: { x: 0.25, y: -0.5 } },
    });
    expect(res.body.id).toMatch(/^\d+$/);
    expect(res.body.url).toMatch(keyUrl('original', 'png'));
    expect(res.body.preview_url).toMatch(keyUrl('small', 'png'));
    expect(res.body.text_url).toBe(res.body.url);
    expect(isBlurhashValid(res.body.blurhash).result).toBe(true);

    // Mastodon's `small` style: at most 640×360 worth of pixels, same aspect ratio.
    const small = res.body.meta.small;
    expect(small.width * small.height).toBeLessThanOrEqual(230_400);
    expect(small.width * small.height).toBeGreaterThan(220_000);
    expect(small.aspect).toBeCloseTo(800 / 600, 2);
    expect(small.size).toBe(`${small.width}x${small.height}`);

    const original = await fetchStored(res.body.url);
    expect(original.contentType).toBe('image/png');
    expect(original.meta).toMatchObject({ format: 'png', width: 800, height: 600, hasAlpha: true });
    const preview = await fetchStored(res.body.preview_url);
    expect(preview.meta).toMatchObject({ format: 'png', width: small.width, height: small.height });

    const stored = await mediaById(res.body.id);
    expect(stored).toMatchObject({ accountId: account.id, statusId: null, state: 'ready', type: 'image', contentType: 'image/png' });
  });

  it('applies the EXIF orientation of a JPEG and stores it without any metadata', async () => {
    const { token } = await aUser();
    // Stored 300 wide × 600 tall, red above blue, tagged "rotate 90° clockwise": it displays as
    // 600 × 300 with blue on the left and red on the right.
    const blue = await solid(300, 300, { r: 0, g: 0, b: 255 }).png().toBuffer();
    const jpeg = await solid(300, 600, { r: 255, g: 0, b: 0 })
      .composite([{ input: blue, top: 300, left: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'secret camera owner' } } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);

    const res = await upload(token, { file: { data: jpeg, filename: 'IMG_0001.JPG', type: 'image/jpeg' } });
    expect(res.status).toBe(200);
    expect(res.body.meta.original).toEqual({ width: 600, height: 300, size: '600x300', aspect: 2 });
    expect(res.body.url).toMatch(keyUrl('original', 'jpg'));
    expect(res.body.meta.focus).toBeUndefined();
    expect(res.body.description).toBeNull();

    const stored = await fetchStored(res.body.url);
    expect(stored.contentType).toBe('image/jpeg');
    expect(stored.meta).toMatchObject({ format: 'jpeg', width: 600, height: 300 });
    expect(stored.meta.orientation).toBeUndefined();
    expect(stored.meta.exif).toBeUndefined();
    expect(stored.data.includes(Buffer.from('secret camera owner'))).toBe(false);
    const pixel = async (left: number, top: number) =>
      [...(await sharp(stored.data).extract({ left, top, width: 1, height: 1 }).raw().toBuffer())];
    const [lr, , lb] = await pixel(50, 150);
    const [rr, , rb] = await pixel(550, 150);
    expect(lb).toBeGreaterThan(200);
    expect(lr).toBeLessThan(60);
    expect(rr).toBeGreaterThan(200);
    expect(rb).toBeLessThan(60);
    const preview = await fetchStored(res.body.preview_url);
    expect(preview.meta.format).toBe('jpeg');
    expect(preview.meta.width).toBeGreaterThan(preview.meta.height!);
  });

  it('decides the type from the content: a PNG named .jpg and sent as image/jpeg is stored as a PNG', async () => {
    const { token } = await aUser();
    const png = await solid(120, 80, { r: 0, g: 200, b: 0 }).png().toBuffer();
    const res = await upload(token, { file: { data: png, filename: 'holiday.jpg', type: 'image/jpeg' } });
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('image');
    expect(res.body.url).toMatch(keyUrl('original', 'png'));
    expect((await fetchStored(res.body.url)).meta.format).toBe('png');
  });

  it('scales originals larger than 3840×2160 worth of pixels down, keeping the aspect ratio', async () => {
    const { token } = await aUser();
    const big = await solid(4000, 2500, { r: 90, g: 90, b: 90 }).jpeg().toBuffer();
    const res = await upload(token, { file: { data: big, filename: 'big.jpg', type: 'image/jpeg' } });
    expect(res.status).toBe(200);
    const { width, height } = res.body.meta.original;
    expect(width * height).toBeLessThanOrEqual(8_294_400);
    expect(width).toBeGreaterThan(3600);
    expect(width / height).toBeCloseTo(1.6, 2);
    expect((await fetchStored(res.body.url)).meta).toMatchObject({ width, height });
  });

  it('keeps an animated GIF animated and previews its first frame as a PNG', async () => {
    const { token } = await aUser();
    const frames = await Promise.all([0, 1, 2].map((i) => solid(60, 40, { r: 80 * i, g: 50, b: 0 }).png().toBuffer()));
    const gif = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    const res = await upload(token, { file: { data: gif, filename: 'dance.gif', type: 'image/gif' } });
    expect(res.status).toBe(200);
    expect(res.body.meta.original).toMatchObject({ width: 60, height: 40 });
    const original = await fetchStored(res.body.url);
    expect(original.meta).toMatchObject({ format: 'gif', pages: 3, width: 60 });
    expect(res.body.preview_url).toMatch(keyUrl('small', 'png'));
  });

  it('stores a still GIF as a PNG, as Mastodon does', async () => {
    const { token } = await aUser();
    const gif = await solid(30, 30, { r: 255, g: 255, b: 0 }).gif().toBuffer();
    const res = await upload(token, { file: { data: gif, filename: 'dot.gif', type: 'image/gif' } });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(keyUrl('original', 'png'));
  });

  it('accepts WebP', async () => {
    const { token } = await aUser();
    const webp = await solid(64, 48, { r: 10, g: 10, b: 10 }).webp().toBuffer();
    const res = await upload(token, { file: { data: webp, filename: 'x.webp', type: 'image/webp' } });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(keyUrl('original', 'webp'));
  });
});

describe('POST /api/v1/media with files that are not images', () => {
  it('keeps audio as an `unknown` attachment with no preview and a null blurhash (no transcoder here)', async () => {
    const { token } = await aUser();
    const data = wav();
    const res = await upload(token, { file: { data, filename: 'tone.wav', type: 'audio/wav' }, description: 'A tone' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'unknown', blurhash: null, preview_url: null, meta: {}, description: 'A tone' });
    expect(res.body.url).toMatch(keyUrl('original', 'wav'));
    const stored = await fetch(res.body.url);
    expect(stored.headers.get('content-type')).toBe('audio/wave');
    expect(stored.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await stored.arrayBuffer()).equals(data)).toBe(true);
  });

  it('keeps an MP3 (an ID3 tag, then MPEG audio frames to the end), served as audio/mpeg for download, never rendered', async () => {
    const { token } = await aUser();
    const data = Buffer.concat([id3('A tone'), mp3Frames(12)]);
    const res = await upload(token, { file: { data, filename: 'tone.mp3', type: 'audio/mpeg' } });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(keyUrl('original', 'mp3'));
    // What the bucket serves, as S3 serves it: the type from the bytes, and a download disposition.
    const stored = await fetch(res.body.url);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('audio/mpeg');
    expect(stored.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await stored.arrayBuffer()).equals(data)).toBe(true);
  });

  it('keeps an MP4 whose boxes tile the file, for download', async () => {
    const { token } = await aUser();
    const res = await upload(token, { file: { data: mp4(), filename: 'clip.mp4', type: 'video/mp4' } });
    expect(res.status).toBe(200);
    const stored = await fetch(res.body.url);
    expect(stored.headers.get('content-type')).toBe('video/mp4');
    expect(stored.headers.get('content-disposition')).toBe('attachment');
  });

  /** An Ogg page: version 0, `flags`, one segment holding `packet` (at most 255 bytes). */
  const oggPage = (flags: number, packet: Buffer) =>
    Buffer.concat([Buffer.from('OggS', 'latin1'), Buffer.from([0, flags]), Buffer.alloc(8), Buffer.from([1, 0, 0, 0]), Buffer.alloc(8), Buffer.from([1, packet.length]), packet]);
  /** An EBML element with a one-byte size. */
  const ebml = (id: number[], payload: Buffer) => Buffer.concat([Buffer.from(id), Buffer.from([0x80 | payload.length]), payload]);
  it.each([
    ['an Ogg stream', () => Buffer.concat([oggPage(0x02, Buffer.from('\x01vorbis', 'latin1')), oggPage(0x04, Buffer.alloc(200, 1))]), 'audio/ogg'],
    ['a FLAC stream', () => Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), Buffer.alloc(34, 1), Buffer.from([0xff, 0xf8]), Buffer.alloc(100)]), 'audio/flac'],
    ['a WebM file', () => Buffer.concat([ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], Buffer.from('webm', 'latin1'))), Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), Buffer.alloc(300, 2)]), 'video/webm'],
  ])('keeps %s, for download', async (_what, build, type) => {
    const { token } = await aUser();
    const res = await upload(token, { file: { data: build(), filename: 'a.bin', type: 'application/octet-stream' } });
    expect(res.status).toBe(200);
    const stored = await fetch(res.body.url);
    expect(stored.headers.get('content-type')).toBe(type);
    expect(stored.headers.get('content-disposition')).toBe('attachment');
  });

  it('serves an image inline: it was decoded and re-encoded here', async () => {
    const { token } = await aUser();
    const res = await upload(token, { file: { data: await solid(20, 20, { r: 1, g: 2, b: 3 }).png().toBuffer(), filename: 'a.png', type: 'image/png' } });
    const stored = await fetch(res.body.url);
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(stored.headers.get('content-disposition')).toBeNull();
  });

  it.each([
    ['ID3 followed by an HTML page', () => Buffer.concat([id3('x'), HTML])],
    ['an ID3 tag declaring more bytes than the file has, holding an HTML page', () => Buffer.concat([id3('x', 100_000), HTML])],
    ['MP3 frames followed by an HTML page', () => Buffer.concat([id3('x'), mp3Frames(3), HTML])],
    ['an HTML page after one MPEG frame sync', () => Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x44]), HTML])],
    ['an MP4 file type box followed by an HTML page', () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0', 'latin1')), HTML])],
    ['an MP4 without a movie box', () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0', 'latin1')), box('mdat', HTML)])],
    ['an Ogg capture pattern followed by an HTML page', () => Buffer.concat([Buffer.from('OggS\0\x02', 'latin1'), HTML])],
    ['an EBML magic number followed by an HTML page', () => Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), HTML])],
    ['a FLAC marker followed by an HTML page', () => Buffer.concat([Buffer.from('fLaC', 'latin1'), HTML])],
    ['a RIFF WAVE header followed by an HTML page', () => Buffer.concat([Buffer.from('RIFF\xff\0\0\0WAVE', 'latin1'), HTML])],
  ])('refuses %s with 422, storing nothing', async (_what, build) => {
    const { token } = await aUser();
    const before = await storedObjectCount();
    const res = await upload(token, { file: { data: build(), filename: 'song.mp3', type: 'audio/mpeg' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Validation failed: File content type is invalid, File is invalid' });
    expect(await storedObjectCount()).toBe(before);
  });
});

describe('POST /api/v2/media', () => {
  it('answers 200 with the processed attachment, since images are processed within the request', async () => {
    const { token } = await aUser();
    const png = await solid(50, 50, { r: 1, g: 2, b: 3 }).png().toBuffer();
    const res = await upload(token, { file: { data: png, filename: 'a.png', type: 'image/png' } }, 2);
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(keyUrl('original', 'png'));
    expect((await mediaById(res.body.id))?.state).toBe('ready');
  });
});

describe('refused uploads', () => {
  const INVALID = 'Validation failed: File content type is invalid, File is invalid';
  let token: string;
  let jpeg: Buffer;
  let bomb: Buffer | undefined;
  beforeAll(async () => {
    ({ token } = await aUser());
    jpeg = await solid(400, 300, { r: 10, g: 200, b: 30 }).jpeg().toBuffer();
  });

  const png = () => solid(20, 20, { r: 0, g: 0, b: 0 }).png().toBuffer();
  type Case = [string, () => Promise<Record<string, Part>>, number, string | RegExp];
  const cases: Case[] = [
    ['a text file', async () => ({ file: { data: Buffer.from('just some words\n'), filename: 'notes.txt', type: 'text/plain' } }), 422, INVALID],
    ['a text file claiming to be a JPEG', async () => ({ file: { data: Buffer.from('just some words\n'), filename: 'a.jpg', type: 'image/jpeg' } }), 422, INVALID],
    ['a PDF', async () => ({ file: { data: Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n'), filename: 'a.pdf', type: 'application/pdf' } }), 422, INVALID],
    ['an executable', async () => ({ file: { data: Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(64)]), filename: 'a.out', type: 'application/octet-stream' } }), 422, INVALID],
    ['an SVG', async () => ({ file: { data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'), filename: 'a.svg', type: 'image/svg+xml' } }), 422, INVALID],
    ['a TIFF', async () => ({ file: { data: await solid(10, 10, { r: 1, g: 1, b: 1 }).tiff().toBuffer(), filename: 'a.tif', type: 'image/tiff' } }), 422, INVALID],
    ['an empty file', async () => ({ file: { data: Buffer.alloc(0), filename: 'empty.png', type: 'image/png' } }), 422, INVALID],
    ['a truncated JPEG', async () => ({ file: { data: jpeg.subarray(0, Math.floor(jpeg.length / 2)), filename: 'cut.jpg', type: 'image/jpeg' } }), 422, INVALID],
    ['a corrupt PNG', async () => {
      const data = Buffer.from(await png());
      data.fill(0x41, 40, data.length - 12);
      return { file: { data, filename: 'bad.png', type: 'image/png' } };
    }, 422, INVALID],
    ['a decompression bomb (10000×10000 single-colour PNG)', async () => {
      bomb ??= await solid(10000, 10000, { r: 255, g: 255, b: 255 }).png({ compressionLevel: 9 }).toBuffer();
      expect(bomb.length).toBeLessThan(1024 * 1024);
      return { file: { data: bomb, filename: 'bomb.png', type: 'image/png' } };
    }, 422, 'Validation failed: File dimensions are too large (at most 33177600 pixels)'],
    ['no file', async () => ({ description: 'nothing attached' }), 422, "Validation failed: File can't be blank"],
    ['a file sent as a text field', async () => ({ file: 'iVBORw0KGgo=' }), 422, INVALID],
    ['a description over 1500 characters', async () => ({ file: { data: await png(), filename: 'a.png', type: 'image/png' }, description: 'd'.repeat(1501) }), 422, 'Validation failed: description is too long (maximum is 1500 characters)'],
    ['a focus out of range', async () => ({ file: { data: await png(), filename: 'a.png', type: 'image/png' }, focus: '1.5,0' }), 422, /^Validation failed: focus must be two numbers from -1.0 to 1.0/],
    ['a focus that is not numbers', async () => ({ file: { data: await png(), filename: 'a.png', type: 'image/png' }, focus: 'left,top' }), 422, /focus must be two numbers/],
    ['a focus with one number', async () => ({ file: { data: await png(), filename: 'a.png', type: 'image/png' }, focus: '0.5' }), 422, /focus must be two numbers/],
    ['a focus with three numbers', async () => ({ file: { data: await png(), filename: 'a.png', type: 'image/png' }, focus: '0,0,0' }), 422, /focus must be two numbers/],
  ];

  it.each(cases)('refuses %s on v1 and v2, storing nothing', async (_name, parts, status, error) => {
    const objectsBefore = await storedObjectCount();
    const itemsBefore = await mediaItemCount();
    for (const version of [1, 2] as const) {
      const res = await upload(token, await parts(), version);
      expect(res.status).toBe(status);
      if (typeof error === 'string') expect(res.body).toEqual({ error });
      else expect(res.body.error).toMatch(error);
    }
    expect(await storedObjectCount()).toBe(objectsBefore);
    expect(await mediaItemCount()).toBe(itemsBefore);
  });

  // The limit's edges, announced and enforced alike, are in media-size-limit.test.ts.
  it('answers 413 for a file beyond the upload limit, storing nothing', async () => {
    const objectsBefore = await storedObjectCount();
    const res = await upload(token, { file: { data: Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7), filename: 'x.bin', type: 'video/mp4' } });
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual(expect.any(String));
    expect(await storedObjectCount()).toBe(objectsBefore);
  });

  it('refuses a JSON description of the wrong type', async () => {
    const res = await call(createV1, { method: 'POST', path: '/api/v1/media', token, json: { description: 42 } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: description must be a string');
  });

  it('refuses a malformed multipart body with 400', async () => {
    const res = await call(createV1, {
      method: 'POST',
      path: '/api/v1/media',
      token,
      body: { data: 'not multipart at all', contentType: 'multipart/form-data' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe('who may upload', () => {
  const file = async () => ({ file: { data: await solid(10, 10, { r: 0, g: 0, b: 0 }).png().toBuffer(), filename: 'a.png', type: 'image/png' } });

  it.each([
    ['no token', async () => undefined, 401, 'The access token is invalid'],
    ['an unknown token', async () => 'not-a-real-token', 401, 'The access token is invalid'],
    ['a read-only user token', async () => (await aUser({ scopes: ['read'] })).token, 403, 'This action is outside the authorized scopes'],
    ['a write:statuses-only user token', async () => (await aUser({ scopes: ['write:statuses'] })).token, 403, 'This action is outside the authorized scopes'],
    ['an app token', async () => (await anAppToken(['read', 'write'])).token, 422, 'This method requires an authenticated user'],
  ])('refuses %s', async (_name, tokenFor, status, error) => {
    const objectsBefore = await storedObjectCount();
    const token = await tokenFor();
    for (const handler of [createV1, createV2]) {
      const res = await call(handler, { method: 'POST', path: '/api/v1/media', ...(token ? { token } : {}), body: await multipart(await file()) });
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error });
    }
    expect(await storedObjectCount()).toBe(objectsBefore);
  });

  it('accepts a token with the granular write:media scope', async () => {
    const { token } = await aUser({ scopes: ['write:media'] });
    const res = await upload(token, await file());
    expect(res.status).toBe(200);
  });
});

describe('no half-written attachments', () => {
  const pngPart = async () => ({ kind: 'file' as const, filename: 'a.png', contentType: 'image/png', data: await solid(30, 20, { r: 9, g: 9, b: 9 }).png().toBuffer() });

  it('writes no item when the files cannot be stored', async () => {
    const { token } = await aUser();
    const itemsBefore = await mediaItemCount();
    const bucket = process.env.MEDIA_BUCKET!;
    process.env.MEDIA_BUCKET = `${bucket}-missing`;
    try {
      const res = await upload(token, { file: { data: (await pngPart()).data, filename: 'a.png', type: 'image/png' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
    } finally {
      process.env.MEDIA_BUCKET = bucket;
    }
    expect(await mediaItemCount()).toBe(itemsBefore);
  });

  it('removes the stored original and preview when the item cannot be written', async () => {
    const { account } = await aUser();
    const objectsBefore = await storedObjectCount();
    const table = process.env.TABLE_NAME!;
    process.env.TABLE_NAME = `${table}-missing`;
    try {
      await expect(createAttachment(account, { file: await pngPart() })).rejects.toThrow();
    } finally {
      process.env.TABLE_NAME = table;
    }
    expect(await storedObjectCount()).toBe(objectsBefore);
  });
});
