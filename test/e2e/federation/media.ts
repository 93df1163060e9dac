// Remote media across two servers of ours, through masto: an image posted on the
// first server is shown on the second from the second's own media URL (its remote
// media worker copied it), with `remote_url` naming the first's copy; an avatar set
// on the first shows on the second likewise; a custom emoji of the first server
// (added with `npm run admin -- emoji add`, run against that stack's table and
// bucket) used in a post shows in the status's `emojis` on the second, from the
// first server's URL.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { eventually, newUser, type MastoUser } from '../../support/masto';
import type { Stack } from '../../support/stack';
import { HOP_MS, STEP_MS, acctOn, need, resolveAccount, resolveStatus, adminOn } from './pair';

const square = (width: number, height: number, background: { r: number; g: number; b: number }) =>
  sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();

/** A stack's media URL (MEDIA_URL: its origin's /system), read from the URL of a file it serves. */
const mediaUrlOf = (fileUrl: string) => {
  const url = new URL(fileUrl);
  return `${url.origin}/${url.pathname.split('/')[1]}`;
};

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

export function mediaSteps(pair: () => [Stack, Stack]) {
  describe('remote media', () => {
    let mia: MastoUser; // on the first server: an avatar, a post with an image, a post with a custom emoji
    let ned: MastoUser; // on the second server: sees them
    let firstMediaUrl: string | undefined;

    beforeAll(async () => {
      const [first, second] = pair();
      [mia, ned] = await Promise.all([newUser(first.baseUrl, 'mmia'), newUser(second.baseUrl, 'mned')]);
      // Before the second server first fetches her actor, so that the avatar is in the document it reads.
      const me = await mia.client.v1.accounts.updateCredentials({ avatar: new Blob([await square(300, 200, { r: 20, g: 160, b: 60 })], { type: 'image/png' }) });
      firstMediaUrl = mediaUrlOf(me.avatar);
    }, STEP_MS);

    it("an image posted on the first server shows on the second from the second's media URL, remote_url the first's", async () => {
      const [first, second] = pair();
      const media = await mia.client.v2.media.create({ file: new Blob([await square(120, 90, { r: 40, g: 40, b: 220 })], { type: 'image/png' }), description: 'a blue box' });
      const posted = await mia.client.v1.statuses.create({ status: 'a picture', visibility: 'public', mediaIds: [media.id] });
      const original = posted.mediaAttachments[0]!;
      expect(new URL(original.url!).host).toBe(new URL(need(firstMediaUrl, "the first server's media URL")).host);

      const seen = await resolveStatus(ned, posted.uri);
      const copied = await eventually(
        async () => {
          const shown = (await ned.client.v1.statuses.$select(seen.id).fetch()).mediaAttachments[0];
          return shown && shown.url !== shown.remoteUrl ? shown : undefined;
        },
        "the image copied to the second server",
        HOP_MS,
      );
      expect(copied).toMatchObject({ type: 'image', remoteUrl: original.url, description: 'a blue box' });
      expect(new URL(copied.url!).hostname).toBe(second.domain);
      expect(new URL(copied.url!).hostname).not.toBe(first.domain);
      expect(new URL(copied.previewUrl!).hostname).toBe(second.domain);
      expect(await sharp(await download(copied.url!)).metadata()).toMatchObject({ format: 'png', width: 120, height: 90 });
    }, STEP_MS);

    it("an avatar set on the first server shows on the second from the second's media URL", async () => {
      const [first, second] = pair();
      const own = await mia.client.v1.accounts.verifyCredentials();
      const there = await resolveAccount(ned, acctOn(mia, first));
      const copied = await eventually(
        async () => {
          const shown = await ned.client.v1.accounts.$select(there.id).fetch();
          return new URL(shown.avatar).hostname === second.domain ? shown : undefined;
        },
        "the avatar copied to the second server",
        HOP_MS,
      );
      expect(copied.avatar).not.toBe(own.avatar);
      expect(copied.avatarStatic).toBe(copied.avatar);
      expect(await sharp(await download(copied.avatar)).metadata()).toMatchObject({ width: 400, height: 400 });
    }, STEP_MS);

    it("a custom emoji of the first server used in a post shows in the post's emojis on the second", async () => {
      const [first] = pair();
      const file = join(mkdtempSync(join(tmpdir(), 'tootless-emoji-')), 'h6party.png');
      writeFileSync(file, await square(64, 64, { r: 250, g: 200, b: 0 }));
      await adminOn(first, ['emoji', 'add', 'h6party', file], { media: true });

      const posted = await mia.client.v1.statuses.create({ status: 'party time :h6party:', visibility: 'public' });
      const ours = posted.emojis.find((e) => e.shortcode === 'h6party');
      expect(ours).toBeDefined();
      const seen = await resolveStatus(ned, posted.uri);
      expect(seen.emojis).toEqual([{ shortcode: 'h6party', url: ours!.url, staticUrl: ours!.url, visibleInPicker: false }]);
      expect((await sharp(await download(seen.emojis[0]!.url)).metadata()).format).toBe('png');
    }, STEP_MS);
  });
}
