// The upload limit is what the deployed path carries (lib/http/limits.ts): the instance announces it,
// a file of exactly that size uploads and processes, one byte more is refused with 413 while the
// multipart body is parsed, storing nothing. Media object keys carry a random part.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as instanceV1 } from '../../functions/instance/show';
import { handler as instanceV2 } from '../../functions/instance/show_v2';
import { handler as createV1 } from '../../functions/media/create';
import { handler as createV2 } from '../../functions/media/create_v2';
import { handler as showMedia } from '../../functions/media/show';
import { s3 } from '../support/s3';
import { accountById } from '../../lib/db/accounts';
import { mediaById } from '../../lib/db/media';
import { createAttachment } from '../../lib/media/attachments';
import {
  EVENT_ENVELOPE_BYTES,
  LAMBDA_REQUEST_PAYLOAD_BYTES,
  MAX_BINARY_BODY_BYTES,
  MAX_UPLOAD_BYTES,
  MULTIPART_FRAMING_BYTES,
  uploadSizeLimit,
} from '../../lib/http/limits';
import { aMediaAttachment, aUser } from '../support/factories';
import { call } from '../support/http';
import { storedItemCount } from '../support/items';
import { multipart, type Part } from '../support/multipart';
import { paddedJpeg } from '../support/padded-jpeg';

const upload = async (token: string, parts: Record<string, Part>, version: 1 | 2) =>
  call(version === 1 ? createV1 : createV2, { method: 'POST', path: `/api/v${version}/media`, token, body: await multipart(parts) });

const jpegPart = (data: Buffer): Part => ({ data, filename: 'edge.jpg', type: 'image/jpeg' });

async function storedObjectCount(): Promise<number> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: process.env.MEDIA_BUCKET! }));
  return out.KeyCount ?? 0;
}

/** 16 random bytes in base64url: 22 characters. */
const RANDOM_PART = '[A-Za-z0-9_-]{22}';

afterEach(() => {
  delete process.env.MEDIA_SIZE_LIMIT;
});

describe('the upload limit', () => {
  it('is what fits, base64-encoded with its form, in one Lambda request payload: about 4.5 MB', () => {
    expect(MAX_UPLOAD_BYTES).toBe(4_519_936);
    // The body that carries the file, its multipart framing and the envelope of the event, base64-encoded, fits in 6 MB.
    const body = MAX_UPLOAD_BYTES + MULTIPART_FRAMING_BYTES;
    expect(Math.ceil(body / 3) * 4 + EVENT_ENVELOPE_BYTES).toBeLessThanOrEqual(LAMBDA_REQUEST_PAYLOAD_BYTES);
    expect(Math.ceil(MAX_BINARY_BODY_BYTES / 3) * 4 + EVENT_ENVELOPE_BYTES).toBeLessThanOrEqual(LAMBDA_REQUEST_PAYLOAD_BYTES);
    expect(uploadSizeLimit()).toBe(MAX_UPLOAD_BYTES);
  });

  it('is announced by both instance endpoints, for images and for video', async () => {
    const v1 = await call(instanceV1, { path: '/api/v1/instance' });
    const v2 = await call(instanceV2, { path: '/api/v2/instance' });
    for (const media of [v1.body.configuration.media_attachments, v2.body.configuration.media_attachments]) {
      expect(media).toMatchObject({ image_size_limit: MAX_UPLOAD_BYTES, video_size_limit: MAX_UPLOAD_BYTES });
    }
  });

  it.each([1, 2] as const)('takes a JPEG of exactly the limit on v%i, processed and stored', async (version) => {
    const { account, token } = await aUser();
    const file = await paddedJpeg(MAX_UPLOAD_BYTES);
    expect(file.length).toBe(MAX_UPLOAD_BYTES);

    const res = await upload(token, { file: jpegPart(file), description: 'at the edge' }, version);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'image', description: 'at the edge', meta: { original: { width: 96, height: 64 } } });
    const stored = await fetch(res.body.url);
    expect(stored.status).toBe(200);
    // Re-encoded without the padding: the picture, not the upload's bytes.
    expect(await sharp(Buffer.from(await stored.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 96, height: 64 });
    expect(await mediaById(res.body.id)).toMatchObject({ accountId: account.id, state: 'ready' });
  });

  it.each([1, 2] as const)('refuses a JPEG one byte over the limit on v%i with 413, storing nothing', async (version) => {
    const { token } = await aUser();
    const file = await paddedJpeg(MAX_UPLOAD_BYTES + 1);
    const objectsBefore = await storedObjectCount();
    const itemsBefore = await storedItemCount();

    const res = await upload(token, { file: jpegPart(file) }, version);

    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'File is too large: the limit is 4519936 bytes, 4.3 MB' });
    expect(await storedObjectCount()).toBe(objectsBefore);
    expect(await storedItemCount()).toBe(itemsBefore);
  });

  it('holds for a file that reaches the processing without the multipart parser', async () => {
    const { account } = await aUser();
    const data = await paddedJpeg(MAX_UPLOAD_BYTES + 1);
    await expect(createAttachment(account, { file: { kind: 'file', filename: 'edge.jpg', contentType: 'image/jpeg', data } })).rejects.toMatchObject({
      status: 422,
      message: 'Validation failed: File file size must be at most 4519936 bytes, 4.3 MB',
    });
  });

  it('refuses an audio or video file over the limit as it refuses an image', async () => {
    const { token } = await aUser();
    const res = await upload(token, { file: { data: Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7), filename: 'x.mp4', type: 'video/mp4' } }, 2);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/^File is too large/);
  });

  it('refuses an avatar over the limit with 413 and leaves the account as it was', async () => {
    const { account, token } = await aUser();
    const res = await call(updateCredentials, {
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      token,
      body: await multipart({ avatar: jpegPart(await paddedJpeg(MAX_UPLOAD_BYTES + 1)), display_name: 'Too big' }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/^File is too large/);
    expect(await accountById(account.id)).toMatchObject({ displayName: account.displayName, avatarKey: null });
  });
});

describe('MEDIA_SIZE_LIMIT, a stage setting', () => {
  it('lowers the limit, announced and enforced alike', async () => {
    process.env.MEDIA_SIZE_LIMIT = '1000000';
    const { token } = await aUser();
    const v2 = await call(instanceV2, { path: '/api/v2/instance' });
    expect(v2.body.configuration.media_attachments).toMatchObject({ image_size_limit: 1_000_000, video_size_limit: 1_000_000 });

    expect((await upload(token, { file: jpegPart(await paddedJpeg(1_000_000)) }, 2)).status).toBe(200);
    const over = await upload(token, { file: jpegPart(await paddedJpeg(1_000_001)) }, 2);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: 'File is too large: the limit is 1000000 bytes, 0.9 MB' });
  });

  it.each([
    ['above what the deployed path carries', String(MAX_UPLOAD_BYTES * 2)],
    ['not a number', 'lots'],
    ['zero', '0'],
  ])('cannot raise it: a setting %s leaves the computed maximum', async (_name, setting) => {
    process.env.MEDIA_SIZE_LIMIT = setting;
    expect(uploadSizeLimit()).toBe(MAX_UPLOAD_BYTES);
    const v1 = await call(instanceV1, { path: '/api/v1/instance' });
    expect(v1.body.configuration.media_attachments.image_size_limit).toBe(MAX_UPLOAD_BYTES);
  });
});

describe('media object keys', () => {
  it('carry a random part of their own, so two uploads of one file, and their styles, differ', async () => {
    const { token } = await aUser();
    const file = await paddedJpeg(10_000);
    const first = await upload(token, { file: jpegPart(file) }, 2);
    const second = await upload(token, { file: jpegPart(file) }, 2);
    expect([first.status, second.status]).toEqual([200, 200]);

    const keys = [];
    for (const res of [first, second]) {
      const media = await mediaById(res.body.id);
      expect(media?.fileKey).toMatch(new RegExp(`^media_attachments/files/\\d{20}/original/${RANDOM_PART}\\.jpg$`));
      expect(media?.previewKey).toMatch(new RegExp(`^media_attachments/files/\\d{20}/small/${RANDOM_PART}\\.jpg$`));
      expect(res.body.url).toBe(`${process.env.MEDIA_URL}/${media?.fileKey}`);
      keys.push(media!.fileKey!.split('/').pop(), media!.previewKey!.split('/').pop());
    }
    expect(new Set(keys).size).toBe(4);
  });

  it('serve an attachment stored under a key without a random part from the key it was stored with', async () => {
    const { account, token } = await aUser();
    const legacy = await aMediaAttachment(account);
    const res = await call(showMedia, { path: `/api/v1/media/${legacy.id}`, pathParameters: { id: legacy.id }, token });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(`${process.env.MEDIA_URL}/media_attachments/files/${legacy.id}/original.png`);
  });

  it('of avatars and headers carry 16 random bytes, new on every upload', async () => {
    const { account, token } = await aUser();
    const image = await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 9, g: 9, b: 9 } } }).png().toBuffer();
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await call(updateCredentials, {
        method: 'PATCH',
        path: '/api/v1/accounts/update_credentials',
        token,
        body: await multipart({ avatar: { data: image, filename: 'a.png', type: 'image/png' }, header: { data: image, filename: 'h.png', type: 'image/png' } }),
      });
      expect(res.status).toBe(200);
      const stored = await accountById(account.id);
      expect(stored?.avatarKey).toMatch(new RegExp(`^accounts/avatars/\\d{20}/${RANDOM_PART}\\.png$`));
      expect(stored?.headerKey).toMatch(new RegExp(`^accounts/headers/\\d{20}/${RANDOM_PART}\\.png$`));
      keys.push(stored!.avatarKey!, stored!.headerKey!);
    }
    expect(new Set(keys).size).toBe(4);
  });
});
