import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { handler as index } from '../../functions/custom_emojis/index';
import { main } from '../../lib/admin/cli';
import { allEmojis, putEmoji } from '../../lib/db/emojis';
import { updateAccount } from '../../lib/db/accounts';
import { renderAccount } from '../../lib/render/account';
import { renderStatus } from '../../lib/render/status';
import { aStoredStatus, aUser } from '../support/factories';
import { call } from '../support/http';

let dir: string;
const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  // The line naming the stage and table every command starts with is admin-cli.test.ts's concern.
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => void (/^Stage \S+, table /.test(t) || err.push(t)) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};
const file = async (name: string, data: Buffer) => {
  const path = join(dir, name);
  await writeFile(path, data);
  return path;
};
const png = (size: number) =>
  sharp({ create: { width: size, height: size, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 1 } } }).png().toBuffer();
const list = () => call(index, { path: '/api/v1/custom_emojis' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emoji-'));
});

describe('custom emoji: operator CLI and GET /api/v1/custom_emojis', () => {
  it('answers an empty list before any emoji exists', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('adds an emoji resized to fit 128×128, stores both images and lists it publicly', async () => {
    const added = await cli('emoji', 'add', 'blobcat', await file('blobcat.png', await png(512)), '--category', 'Blobs');
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toMatch(/Added :blobcat: in Blobs/);
    const hidden = await cli('emoji', 'add', 'secret_1', await file('s.png', await png(32)), '--hidden');
    expect(hidden.code).toBe(0);

    const res = await list();
    expect(res.status).toBe(200);
    const emojis = res.body as Record<string, unknown>[];
    expect(emojis).toEqual(
      expect.arrayContaining([
        { shortcode: 'blobcat', url: expect.stringMatching(/blobcat\.png$/), static_url: expect.stringMatching(/blobcat-static\.png$/), visible_in_picker: true, category: 'Blobs' },
        { shortcode: 'secret_1', url: expect.any(String), static_url: expect.any(String), visible_in_picker: false, category: null },
      ]),
    );
    const blobcat = emojis.find((e) => e.shortcode === 'blobcat');
    const image = await fetch(String(blobcat?.url));
    expect(image.status).toBe(200);
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([128, 128]);
    expect((await fetch(String(blobcat?.static_url))).status).toBe(200);

    const listed = await cli('emoji', 'list');
    expect(listed.out).toMatch(/:blobcat:\s+Blobs\s+visible/);
    expect(listed.out).toMatch(/:secret_1:\s+-\s+hidden/);
  });

  it('removes an emoji and its images', async () => {
    await cli('emoji', 'add', 'goner', await file('g.png', await png(16)));
    const url = ((await list()).body as { shortcode: string; url: string }[]).find((e) => e.shortcode === 'goner')?.url;
    const removed = await cli('emoji', 'remove', 'goner');
    expect(removed).toMatchObject({ code: 0, out: 'Removed :goner:' });
    expect(((await list()).body as { shortcode: string }[]).map((e) => e.shortcode)).not.toContain('goner');
    expect((await fetch(String(url))).status).toBe(404);
    expect(await cli('emoji', 'remove', 'goner')).toMatchObject({ code: 1, err: 'No custom emoji :goner:' });
  });

  it.each([
    ['a taken shortcode', async () => ['blobcat', await file('again.png', await png(8))], /is taken/],
    ['a one-letter shortcode', async () => ['x', await file('x.png', await png(8))], /Invalid shortcode/],
    ['a shortcode with punctuation', async () => ['no-dash', await file('d.png', await png(8))], /Invalid shortcode/],
    ['a missing file', async () => ['nofile', join(dir, 'absent.png')], /Cannot read/],
    ['a JPEG', async () => ['jpeg', await file('j.jpg', await sharp(await png(8)).jpeg().toBuffer())], /Not a PNG, GIF or WebP/],
    ['a text file', async () => ['text', await file('t.png', Buffer.from('not an image'))], /Not a PNG, GIF or WebP/],
    ['an image over 256 KB', async () => ['huge', await file('h.png', Buffer.concat([await png(8), Buffer.alloc(300 * 1024)]))], /too large/],
    ['a missing image argument', async () => ['lonely'], /Missing the image file/],
  ])('refuses %s and adds nothing', async (_, args, message) => {
    const before = await allEmojis();
    const res = await cli('emoji', 'add', ...(await args()));
    expect(res.code).toBe(1);
    expect(res.err).toMatch(message);
    expect(await allEmojis()).toEqual(before);
  });

  it('refuses --category outside emoji add', async () => {
    const res = await cli('emoji', 'list', '--category', 'x');
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/belong to `emoji add`/);
  });

  it('renders the emojis a status and its author use, each once, known ones only', async () => {
    await cli('emoji', 'add', 'party', await file('p.png', await png(16)));
    const author = await aUser();
    const account = await updateAccount(author.account.id, { displayName: 'Alice :party:', note: 'hi :blobcat: :nope:' });
    const status = await aStoredStatus(author.account, { text: ':blobcat: and :blobcat: and :unknown: :secret_1:', spoilerText: 'cw :party:' });
    const rendered = await renderStatus(status, undefined);
    expect((rendered.emojis as { shortcode: string }[]).map((e) => e.shortcode)).toEqual(['party', 'blobcat', 'secret_1']);
    expect((rendered.emojis as Record<string, unknown>[])[1]).toEqual({
      shortcode: 'blobcat', url: expect.any(String), static_url: expect.any(String), visible_in_picker: true, category: 'Blobs',
    });
    const renderedAccount = rendered.account as { emojis: { shortcode: string }[] };
    expect(renderedAccount.emojis.map((e) => e.shortcode)).toEqual(['party', 'blobcat']);
    // Without emoji items from its caller, the synchronous account renderer reads nothing and shows none.
    expect(account && renderAccount(account).emojis).toEqual([]);
  });
});

describe('emoji in entities stay bounded', () => {
  it('renders at most 20 emoji per status and per account, the first ones used', async () => {
    const codes = Array.from({ length: 30 }, (_, i) => `many_${String(i).padStart(2, '0')}`);
    for (const shortcode of codes) {
      await putEmoji({ shortcode, key: `custom_emojis/t/${shortcode}.png`, staticKey: `custom_emojis/t/${shortcode}-static.png`, category: null, visibleInPicker: true, createdAt: new Date().toISOString() });
    }
    const author = await aUser();
    await updateAccount(author.account.id, { note: codes.map((c) => `:${c}:`).join(' ') });
    const status = await aStoredStatus(author.account, { text: codes.map((c) => `:${c}:`).join(' ') });
    const rendered = await renderStatus(status, undefined);
    expect((rendered.emojis as { shortcode: string }[]).map((e) => e.shortcode)).toEqual(codes.slice(0, 20));
    expect((rendered.account as { emojis: { shortcode: string }[] }).emojis.map((e) => e.shortcode)).toEqual(codes.slice(0, 20));
  });

  it('renders a status naming a shortcode longer than any emoji can have, without reading it', async () => {
    const author = await aUser();
    const status = await aStoredStatus(author.account, { text: `look :${'a'.repeat(1100)}: and :${'b'.repeat(101)}:` });
    const rendered = await renderStatus(status, undefined);
    expect(rendered.emojis).toEqual([]);
  });
});

describe('GET /api/v1/custom_emojis bad input (audit)', () => {
  it('is public and takes no input: an invalid token and stray parameters change neither the answer nor the emoji', async () => {
    const before = await allEmojis();
    const plain = await list();
    expect(plain.status).toBe(200);
    const odd = await call(index, { path: '/api/v1/custom_emojis', query: 'limit=-1&max_id=x&shortcode[]=a', token: 'not-a-token' });
    expect([odd.status, odd.body]).toEqual([200, plain.body]);
    expect(await allEmojis()).toEqual(before);
  });
});
