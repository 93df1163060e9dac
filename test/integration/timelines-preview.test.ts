import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as tagTimeline } from '../../functions/timelines/tag';
import { updateInstanceSettings } from '../../lib/db/instance';
import { call } from '../support/http';
import { aPostedStatus, anAppToken, aUser } from '../support/factories';

const endpoints = [
  ['public', (token?: string) => call(publicTimeline, { path: '/api/v1/timelines/public', token })],
  ['tag', (token?: string) => call(tagTimeline, { path: '/api/v1/timelines/tag/news', pathParameters: { hashtag: 'news' }, token })],
] as const;

describe('public and hashtag timelines with public preview off', () => {
  let statusId: string;

  beforeAll(async () => {
    const author = await aUser();
    statusId = (await aPostedStatus(author.account, { tags: ['news'] })).id;
    await updateInstanceSettings({ publicPreview: false });
  });

  it.each(endpoints)('%s: answers 401 without a token', async (_n, get) => {
    const res = await get();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'This API requires an authenticated user' });
  });

  it.each(endpoints)('%s: answers an app token with read:statuses', async (_n, get) => {
    const res = await get((await anAppToken(['read:statuses'])).token);
    expect(res.status).toBe(200);
    expect(res.body.map((s: { id: string }) => s.id)).toEqual([statusId]);
  });

  it.each(endpoints)('%s: answers a user token', async (_n, get) => {
    const res = await get((await aUser()).token);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it.each(endpoints)('%s: refuses a token outside read:statuses with 403', async (_n, get) => {
    const res = await get((await anAppToken(['write:statuses'])).token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });

  it.each(endpoints)('%s: answers again without a token once preview is back on', async (_n, get) => {
    await updateInstanceSettings({ publicPreview: true });
    try {
      const res = await get();
      expect(res.status).toBe(200);
    } finally {
      await updateInstanceSettings({ publicPreview: false });
    }
  });
});
