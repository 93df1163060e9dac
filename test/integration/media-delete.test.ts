// Mastodon 4.4's DELETE /api/v1/media/:id (an own attachment that no status uses, with its files in the bucket)
// and DELETE /api/v1/statuses/:id?delete_media=true (the status's attachments and files go at once instead of
// staying for a redraft).
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { handler as createMedia } from '../../functions/media/create';
import { handler as deleteMedia } from '../../functions/media/delete';
import { handler as showMedia } from '../../functions/media/show';
import { handler as postStatus } from '../../functions/statuses/create';
import { handler as deleteStatus } from '../../functions/statuses/delete';
import { mediaById, type Media } from '../../lib/db/media';
import { call } from '../support/http';
import { multipart } from '../support/multipart';
import { s3 } from '../support/s3';
import { anAppToken, aUser, type UserFixture } from '../support/factories';

process.env.RATE_LIMIT_FACTOR = '100';

const png = () => sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();

async function uploaded(user: UserFixture): Promise<Media> {
  const res = await call(createMedia, { method: 'POST', path: '/api/v1/media', token: user.token, body: await multipart({ file: { data: await png(), filename: 'red.png', type: 'image/png' } }) });
  expect(res.status).toBe(200);
  const media = await mediaById((res.body as { id: string }).id);
  expect(media?.fileKey).toBeTruthy();
  expect(media?.previewKey).toBeTruthy();
  return media!;
}

/** Whether each of the attachment's objects is still in the bucket. */
async function objectsOf(media: Media): Promise<boolean[]> {
  return Promise.all(
    [media.fileKey!, media.previewKey!].map(async (Prefix) => {
      const out = await s3().send(new ListObjectsV2Command({ Bucket: process.env.MEDIA_BUCKET!, Prefix }));
      return (out.KeyCount ?? 0) > 0;
    }),
  );
}

const remove = (id: string, token?: string) => call(deleteMedia, { method: 'DELETE', path: `/api/v1/media/${id}`, pathParameters: { id }, token });
const show = (id: string, token: string) => call(showMedia, { path: `/api/v1/media/${id}`, pathParameters: { id }, token });
const post = async (user: UserFixture, mediaIds: string[]) => {
  const res = await call(postStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'with a picture', media_ids: mediaIds }, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const removeStatus = (id: string, token: string, query?: Record<string, string>) =>
  call(deleteStatus, { method: 'DELETE', path: `/api/v1/statuses/${id}`, pathParameters: { id }, query, token });

describe('DELETE /api/v1/media/:id', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });

  it('deletes an own unattached attachment and its files, answering {}; a second delete is 404', async () => {
    const media = await uploaded(user);
    expect(await objectsOf(media)).toEqual([true, true]);
    const res = await remove(media.id, user.token);
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(await mediaById(media.id)).toBeUndefined();
    expect(await objectsOf(media)).toEqual([false, false]);
    expect((await show(media.id, user.token)).status).toBe(404);
    expect((await remove(media.id, user.token)).status).toBe(404);
  });

  it('refuses an attachment a status uses with 422, as Mastodon says, and keeps it and its files', async () => {
    const media = await uploaded(user);
    await post(user, [media.id]);
    const res = await remove(media.id, user.token);
    expect([res.status, res.body]).toEqual([422, { error: 'Media attachment is currently used by a status' }]);
    expect((await mediaById(media.id))?.statusId).not.toBeNull();
    expect(await objectsOf(media)).toEqual([true, true]);
  });

  it('someone else’s attachment is 404 and stays', async () => {
    const other = await aUser();
    const media = await uploaded(other);
    const res = await remove(media.id, user.token);
    expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
    expect(await mediaById(media.id)).toBeDefined();
    expect(await objectsOf(media)).toEqual([true, true]);
  });

  it.each([['an unknown id', '99999999999'], ['an id that is not one', 'abc']])('%s is 404', async (_, id) => {
    expect((await remove(id, user.token)).status).toBe(404);
  });

  it('refuses no token (401), a bad token (401), an app token (422) and a token without write:media (403)', async () => {
    const media = await uploaded(user);
    const app = await anAppToken(['read', 'write']);
    const wrong = await aUser({ scopes: ['read', 'write:statuses'] });
    const answers = [await remove(media.id), await remove(media.id, 'not-a-token'), await remove(media.id, app.token), await remove(media.id, wrong.token)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const r of answers) expect(r.body).toEqual({ error: expect.any(String) });
    expect(await mediaById(media.id)).toBeDefined();
    // The good twin: write:media alone is enough.
    const narrow = await aUser({ scopes: ['write:media'] });
    const own = await uploaded(narrow);
    expect((await remove(own.id, narrow.token)).status).toBe(200);
  });
});

describe('DELETE /api/v1/statuses/:id with delete_media', () => {
  let user: UserFixture;
  beforeAll(async () => {
    user = await aUser();
  });

  it('without it, the attachments stay (unattached again, files kept) for a redraft', async () => {
    const media = await uploaded(user);
    const status = await post(user, [media.id]);
    const res = await removeStatus(status.id, user.token, { delete_media: 'false' });
    expect(res.status).toBe(200);
    expect((await mediaById(media.id))?.statusId).toBeNull();
    expect(await objectsOf(media)).toEqual([true, true]);
    expect((await show(media.id, user.token)).status).toBe(200);
  });

  it('with delete_media=true, the attachments and their files go at once; the answer still shows them', async () => {
    const [one, two] = [await uploaded(user), await uploaded(user)];
    const status = await post(user, [one.id, two.id]);
    const res = await removeStatus(status.id, user.token, { delete_media: 'true' });
    expect(res.status).toBe(200);
    expect((res.body as { media_attachments: { id: string }[] }).media_attachments.map((m) => m.id)).toEqual([one.id, two.id]);
    for (const media of [one, two]) {
      expect(await mediaById(media.id)).toBeUndefined();
      expect(await objectsOf(media)).toEqual([false, false]);
    }
  });

  it('a delete_media that is not a boolean is 422 naming it, and nothing is deleted', async () => {
    const media = await uploaded(user);
    const status = await post(user, [media.id]);
    const res = await removeStatus(status.id, user.token, { delete_media: 'perhaps' });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('delete_media');
    expect((await mediaById(media.id))?.statusId).toBe(status.id);
  });
});
