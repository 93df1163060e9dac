// Avatar and header uploads through PATCH /api/v1/accounts/update_credentials (multipart).
import sharp from 'sharp';
import { handler as update } from '../../functions/accounts/update_credentials';
import { accountById } from '../../lib/db/accounts';
import { call } from '../support/http';
import { multipart, type Part } from '../support/multipart';
import { aUser } from '../support/factories';


const upload = async (token: string, parts: Record<string, Part>) =>
  call(update, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token, body: await multipart(parts) });

const png = (width: number, height: number, color = { r: 200, g: 30, b: 90 }) =>
  sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();

async function fetchImage(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const data = Buffer.from(await res.arrayBuffer());
  return { contentType: res.headers.get('content-type'), data, meta: await sharp(data).metadata() };
}

describe('avatar and header uploads', () => {
  it('stores a PNG avatar cropped to 400×400 and serves it from the media bucket', async () => {
    const { account, token } = await aUser();
    const res = await upload(token, { avatar: { data: await png(800, 600), filename: 'me.png', type: 'image/png' }, display_name: 'Pictured' });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Pictured');
    const prefix = `${process.env.MEDIA_URL}/accounts/avatars/`;
    expect(res.body.avatar).toMatch(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\d{20}/[\\w-]+\\.png$`));
    expect(res.body.avatar_static).toBe(res.body.avatar);
    expect(res.body.header).toBe('https://social.example/headers/original/missing.png');

    const served = await fetchImage(res.body.avatar);
    expect(served.contentType).toBe('image/png');
    expect(served.meta).toMatchObject({ format: 'png', width: 400, height: 400 });
    expect((await accountById(account.id))?.avatarKey).toEqual(expect.stringMatching(/^accounts\/avatars\//));
  });

  it('stores a JPEG header at 1500×500, applying the EXIF orientation and dropping the metadata', async () => {
    const { token } = await aUser();
    // Stored 500 wide × 1500 tall, red above blue, tagged "rotate 90° clockwise": it displays
    // as 1500 × 500 with blue on the left and red on the right.
    const blue = await sharp({ create: { width: 500, height: 750, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toBuffer();
    const jpeg = await sharp({ create: { width: 500, height: 1500, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .composite([{ input: blue, top: 750, left: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'secret camera owner' } } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);
    const res = await upload(token, { header: { data: jpeg, filename: 'banner.jpg', type: 'image/jpeg' } });
    expect(res.status).toBe(200);
    expect(res.body.header).toMatch(/\/accounts\/headers\/\d{20}\/[\w-]+\.jpg$/);
    const served = await fetchImage(res.body.header);
    expect(served.contentType).toBe('image/jpeg');
    expect(served.meta).toMatchObject({ format: 'jpeg', width: 1500, height: 500 });
    expect(served.meta.orientation).toBeUndefined();
    expect(served.meta.exif).toBeUndefined();
    expect(served.data.includes(Buffer.from('secret camera owner'))).toBe(false);
    const pixel = async (left: number, top: number) => {
      const { data } = await sharp(served.data).extract({ left, top, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
      return [...data];
    };
    const [lr, , lb] = await pixel(100, 250);
    const [rr, , rb] = await pixel(1400, 250);
    expect(lb).toBeGreaterThan(200);
    expect(lr).toBeLessThan(60);
    expect(rr).toBeGreaterThan(200);
    expect(rb).toBeLessThan(60);
  });

  it('replaces an avatar with a fresh URL and removes the old object', async () => {
    const { token } = await aUser();
    const first = await upload(token, { avatar: { data: await png(400, 400), filename: 'a.png', type: 'image/png' } });
    const second = await upload(token, { avatar: { data: await png(300, 300, { r: 0, g: 0, b: 0 }), filename: 'b.png', type: 'image/png' } });
    expect(second.status).toBe(200);
    expect(second.body.avatar).not.toBe(first.body.avatar);
    expect((await fetch(second.body.avatar)).status).toBe(200);
    expect((await fetch(first.body.avatar)).status).toBe(404);
  });

  it('accepts a GIF as a static PNG of its first frame', async () => {
    const { token } = await aUser();
    const gif = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 0, g: 255, b: 0 } } }).gif().toBuffer();
    const res = await upload(token, { avatar: { data: gif, filename: 'a.gif', type: 'image/gif' } });
    expect(res.status).toBe(200);
    expect((await fetchImage(res.body.avatar)).meta).toMatchObject({ format: 'png', width: 400, height: 400 });
  });

  it('judges the file by its bytes, not by the type the client declared', async () => {
    const { token } = await aUser();
    const res = await upload(token, { avatar: { data: await png(100, 100), filename: 'photo.jpg', type: 'application/octet-stream' } });
    expect(res.status).toBe(200);
    expect(res.body.avatar).toMatch(/\.png$/);
  });

  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>');
  it.each([
    ['a text file as avatar', 'avatar', async () => ({ data: Buffer.from('hello, I am not an image\n'), filename: 'a.txt', type: 'text/plain' }), /^Validation failed: Avatar content type is invalid/],
    ['a text file named .png', 'avatar', async () => ({ data: Buffer.from('definitely not a png'), filename: 'a.png', type: 'image/png' }), /^Validation failed: Avatar content type is invalid/],
    ['an SVG (scripts) as header', 'header', async () => ({ data: svg, filename: 'x.svg', type: 'image/svg+xml' }), /^Validation failed: Header content type is invalid/],
    ['a truncated PNG', 'avatar', async () => ({ data: (await png(300, 300)).subarray(0, 120), filename: 'cut.png', type: 'image/png' }), /^Validation failed: Avatar (is invalid|content type is invalid)/],
    [
      'an image over 2 MB',
      'avatar',
      async () => ({
        data: await sharp(Buffer.from(Array.from({ length: 1200 * 1200 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 1200, height: 1200, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer(),
        filename: 'big.png',
        type: 'image/png',
      }),
      /^Validation failed: Avatar file size must be less than 2 MB$/,
    ],
    [
      'a decompression bomb (tiny file, 10000×10000 pixels)',
      'header',
      async () => ({ data: await png(10_000, 10_000), filename: 'bomb.png', type: 'image/png' }),
      /^Validation failed: Header dimensions are too large/,
    ],
  ])('refuses %s with 422 and changes nothing', async (_name, slot, make, message) => {
    const { account, token } = await aUser();
    const file = await make();
    const res = await upload(token, { [slot]: file, display_name: 'Should not stick' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(message) });
    expect(await accountById(account.id)).toEqual(account);
  });

  it('uploads nothing when another field is invalid', async () => {
    const { account, token } = await aUser();
    const res = await upload(token, { avatar: { data: await png(400, 400), filename: 'a.png', type: 'image/png' }, display_name: 'x'.repeat(31) });
    expect(res.status).toBe(422);
    expect(await accountById(account.id)).toEqual(account);
  });

  it('reports both images when both are bad', async () => {
    const { token } = await aUser();
    const text = { data: Buffer.from('nope'), filename: 'a.txt', type: 'text/plain' };
    const res = await upload(token, { avatar: text, header: text });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/Avatar content type is invalid.*, Header content type is invalid/);
  });

  it('refuses more than two files', async () => {
    const { account, token } = await aUser();
    const file = { data: await png(10, 10), filename: 'a.png', type: 'image/png' };
    const res = await upload(token, { avatar: file, header: file, extra: file });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await accountById(account.id)).toEqual(account);
  });
});
