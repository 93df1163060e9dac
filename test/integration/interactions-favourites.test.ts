import { handler as favourite } from '../../functions/statuses/favourite';
import { handler as unfavourite } from '../../functions/statuses/unfavourite';
import { handler as favouritedBy } from '../../functions/statuses/favourited_by';
import { handler as favourites } from '../../functions/favourites/index';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { followRecord } from '../../lib/db/follows';
import { favouriteOf } from '../../lib/db/interactions';
import * as keys from '../../lib/db/keys';
import { notificationsPage } from '../../lib/db/notifications';
import { statusById } from '../../lib/db/statuses';
import { putItem, query } from '../../lib/db/table';
import { newId } from '../../lib/ids';
import { registerInlineWorker, type QueueName } from '../../lib/queue';
import { z } from 'zod';
import { aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

// The notify queue runs its real worker in-process; the messages are recorded too.
const sent: { queue: QueueName; body: unknown }[] = [];
registerInlineWorker('notify', async (event) => {
  for (const r of event.Records) sent.push({ queue: 'notify', body: JSON.parse(r.body) });
  return notifyWorker(event);
});

const act = (handler: typeof favourite, verb: string, id: string, token?: string) =>
  call(handler, { method: 'POST', path: `/api/v1/statuses/${id}/${verb}`, pathParameters: { id }, token });
const fav = (id: string, token?: string) => act(favourite, 'favourite', id, token);
const unfav = (id: string, token?: string) => act(unfavourite, 'unfavourite', id, token);

const anyItem = z.record(z.unknown());
const listOf = async (partition: string) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': partition } }, anyItem)).items;

let author: UserFixture;
let fan: UserFixture;
beforeAll(async () => {
  author = await aUser();
  fan = await aUser();
});
beforeEach(() => {
  sent.length = 0;
});

describe('POST /api/v1/statuses/:id/favourite', () => {
  it('favourites once, counts once, answers the fresh status and notifies the author', async () => {
    const status = await aStoredStatus(author.account);
    const first = await fav(status.id, fan.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: status.id, favourited: true, favourites_count: 1 });

    const again = await fav(status.id, fan.token);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ favourited: true, favourites_count: 1 });

    expect((await statusById(status.id))?.favouritesCount).toBe(1);
    expect(await listOf(keys.statusFavouritesPartition(status.id))).toHaveLength(1);
    expect(await listOf(keys.accountFavouritesPartition(fan.account.id))).toEqual(
      expect.arrayContaining([expect.objectContaining({ statusId: status.id })]),
    );
    expect(sent).toEqual([{ queue: 'notify', body: { type: 'favourite', accountId: author.account.id, fromAccountId: fan.account.id, statusId: status.id } }]);
    const notes = await notificationsPage(author.account.id, { limit: 40 }, { types: ['favourite'] });
    expect(notes).toEqual([expect.objectContaining({ type: 'favourite', fromAccountId: fan.account.id, statusId: status.id })]);
  });

  it('does not notify when favouriting your own status', async () => {
    const status = await aStoredStatus(author.account);
    const res = await fav(status.id, author.token);
    expect(res.body).toMatchObject({ favourited: true, favourites_count: 1 });
    expect(sent).toEqual([]);
  });

  it('favouriting a reblog favourites the original', async () => {
    const original = await aStoredStatus(author.account);
    const reblog = await aStoredStatus(fan.account, { reblogOfId: original.id, text: '', contentHtml: '', conversationId: original.conversationId });
    const other = await aUser();
    const res = await fav(reblog.id, other.token);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(reblog.id);
    expect(res.body.reblog).toMatchObject({ id: original.id, favourited: true, favourites_count: 1 });
    expect(await favouriteOf(other.account.id, original.id)).toBeDefined();
    expect(await favouriteOf(other.account.id, reblog.id)).toBeUndefined();
  });

  it('lets followers favourite private statuses and hides them from everyone else', async () => {
    const status = await aStoredStatus(author.account, { visibility: 'private' });
    const stranger = await aUser();
    const follower = await aUser();
    await putItem(followRecord({ id: newId(), followerId: follower.account.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() }));
    expect((await fav(status.id, stranger.token)).status).toBe(404);
    expect((await fav(status.id, follower.token)).body).toMatchObject({ favourited: true, favourites_count: 1 });
  });

  it.each([
    ['an unknown id', () => newId(), () => fan.token, 404, 'Record not found'],
    ['a malformed id', () => 'not-an-id', () => fan.token, 404, 'Record not found'],
    ['an oversized id', () => '9'.repeat(5000), () => fan.token, 404, 'Record not found'],
    ['no token', () => 'STATUS', () => undefined, 401, 'The access token is invalid'],
    ['an unknown token', () => 'STATUS', () => 'nope', 401, 'The access token is invalid'],
  ])('answers %s with an error and writes nothing', async (_name, id, token, status, error) => {
    const target = await aStoredStatus(author.account);
    const res = await fav(id() === 'STATUS' ? target.id : id(), token());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
    expect((await statusById(target.id))?.favouritesCount).toBe(0);
    expect(await listOf(keys.statusFavouritesPartition(target.id))).toEqual([]);
  });

  it.each([
    ['a read-only token', ['read']],
    ['a token for bookmarks only', ['write:bookmarks']],
    ['a write:statuses token', ['write:statuses']],
  ])('refuses %s with 403 and writes nothing', async (_name, scopes) => {
    const user = await aUser({ scopes });
    const target = await aStoredStatus(author.account);
    const res = await fav(target.id, user.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect(await favouriteOf(user.account.id, target.id)).toBeUndefined();
    expect((await statusById(target.id))?.favouritesCount).toBe(0);
  });

  it('accepts a write:favourites token', async () => {
    const user = await aUser({ scopes: ['write:favourites'] });
    const target = await aStoredStatus(author.account);
    expect((await fav(target.id, user.token)).status).toBe(200);
  });

  it('answers 404 for a direct message the viewer is not part of', async () => {
    const target = await aStoredStatus(author.account, { visibility: 'direct' });
    const res = await fav(target.id, fan.token);
    expect(res.status).toBe(404);
    expect(await favouriteOf(fan.account.id, target.id)).toBeUndefined();
  });
});

describe('POST /api/v1/statuses/:id/unfavourite', () => {
  it('removes the favourite and the count once, however often it is called', async () => {
    const status = await aStoredStatus(author.account);
    await fav(status.id, fan.token);
    const first = await unfav(status.id, fan.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: status.id, favourited: false, favourites_count: 0 });
    const again = await unfav(status.id, fan.token);
    expect(again.body).toMatchObject({ favourited: false, favourites_count: 0 });
    expect((await statusById(status.id))?.favouritesCount).toBe(0);
    expect(await listOf(keys.statusFavouritesPartition(status.id))).toEqual([]);
    expect(await favouriteOf(fan.account.id, status.id)).toBeUndefined();
  });

  it('does not decrement a status nobody favourited', async () => {
    const status = await aStoredStatus(author.account);
    await fav(status.id, author.token);
    const res = await unfav(status.id, fan.token);
    expect(res.body).toMatchObject({ favourited: false, favourites_count: 1 });
    expect((await statusById(status.id))?.favouritesCount).toBe(1);
  });

  it.each([
    ['an unknown id', () => newId(), 404],
    ['a malformed id', () => '12ab', 404],
  ])('answers %s with 404', async (_n, id, status) => {
    const res = await unfav(id(), fan.token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('answers 404 for a private status the viewer cannot see', async () => {
    const status = await aStoredStatus(author.account, { visibility: 'private' });
    expect((await unfav(status.id, fan.token)).status).toBe(404);
  });
});

describe('GET /api/v1/statuses/:id/favourited_by', () => {
  const list = (id: string, query: Record<string, string> = {}, token?: string) =>
    call(favouritedBy, { path: `/api/v1/statuses/${id}/favourited_by`, pathParameters: { id }, query, token });

  it('lists the accounts, newest favourite first, with Link paging that walks every one', async () => {
    const status = await aStoredStatus(author.account);
    const fans = [] as UserFixture[];
    for (let i = 0; i < 5; i++) {
      const u = await aUser();
      fans.push(u);
      await fav(status.id, u.token);
    }
    const all = await list(status.id);
    expect(all.status).toBe(200);
    expect(all.body.map((a: { id: string }) => a.id)).toEqual(fans.map((f) => f.account.id).reverse());

    const seen: string[] = [];
    let res = await list(status.id, { limit: '2' });
    for (let pages = 0; pages < 10 && res.body.length > 0; pages++) {
      seen.push(...res.body.map((a: { id: string }) => a.id));
      const next = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
      expect(next).toBeDefined();
      const url = new URL(next!);
      expect(url.searchParams.get('limit')).toBe('2');
      res = await list(status.id, Object.fromEntries(url.searchParams));
    }
    expect(seen).toEqual(fans.map((f) => f.account.id).reverse());

    // prev (min_id) from the second page gives back the first page.
    const second = await list(status.id, { limit: '2', max_id: /max_id=(\d+)/.exec((await list(status.id, { limit: '2' })).headers.link ?? '')![1]! });
    const prev = new URL(/<([^>]+)>; rel="prev"/.exec(second.headers.link ?? '')![1]!);
    const back = await list(status.id, Object.fromEntries(prev.searchParams));
    expect(back.body.map((a: { id: string }) => a.id)).toEqual(fans.slice(3).map((f) => f.account.id).reverse());
  });

  it('is public for public statuses and 404 for private ones without a token', async () => {
    const open = await aStoredStatus(author.account);
    await fav(open.id, fan.token);
    const res = await list(open.id);
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ id: fan.account.id, username: fan.account.username });
    const closed = await aStoredStatus(author.account, { visibility: 'private' });
    expect((await list(closed.id)).status).toBe(404);
    expect((await list(closed.id, {}, author.token)).status).toBe(200);
  });

  it.each([
    ['a negative limit', { limit: '-1' }, 422],
    ['a non-numeric limit', { limit: 'many' }, 422],
    ['a malformed max_id', { max_id: 'abc' }, 422],
  ])('answers %s with 422', async (_n, query, status) => {
    const target = await aStoredStatus(author.account);
    const res = await list(target.id, query);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed/) });
  });

  it('caps the limit at 80', async () => {
    const target = await aStoredStatus(author.account);
    const res = await list(target.id, { limit: '500' });
    expect(res.status).toBe(200);
  });

  it.each([
    ['an unknown id', () => newId(), undefined, 404],
    ['an invalid token', () => 'STATUS', 'nope', 401],
  ])('answers %s with an error', async (_n, id, token, status) => {
    const target = await aStoredStatus(author.account);
    const res = await list(id() === 'STATUS' ? target.id : id(), {}, token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('refuses a token without a read scope', async () => {
    const user = await aUser({ scopes: ['write'] });
    const target = await aStoredStatus(author.account);
    expect((await list(target.id, {}, user.token)).status).toBe(403);
  });
});

describe('GET /api/v1/favourites', () => {
  const list = (token: string | undefined, query: Record<string, string> = {}) => call(favourites, { path: '/api/v1/favourites', query, token });

  it("lists the viewer's favourites, newest favourite first, paging by favourite id and leaving out what became invisible", async () => {
    const viewer = await aUser();
    const a = await aStoredStatus(author.account);
    const b = await aStoredStatus(author.account);
    const c = await aStoredStatus(author.account, { visibility: 'private' });
    await putItem(followRecord({ id: newId(), followerId: viewer.account.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() }));
    // Favourited in the order b, c, a: the list follows the favourites, not the statuses.
    for (const s of [b, c, a]) expect((await fav(s.id, viewer.token)).status).toBe(200);

    const all = await list(viewer.token);
    expect(all.status).toBe(200);
    expect(all.body.map((s: { id: string }) => s.id)).toEqual([a.id, c.id, b.id]);
    expect(all.body.every((s: { favourited: boolean }) => s.favourited)).toBe(true);

    const first = await list(viewer.token, { limit: '1' });
    expect(first.body.map((s: { id: string }) => s.id)).toEqual([a.id]);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.link ?? '')![1]!);
    expect(next.pathname).toBe('/api/v1/favourites');
    const second = await list(viewer.token, Object.fromEntries(next.searchParams));
    expect(second.body.map((s: { id: string }) => s.id)).toEqual([c.id]);

    // Unfollowing hides the private one; deleting one drops it.
    const { deleteItem } = await import('../../lib/db/table');
    await deleteItem(keys.follow(viewer.account.id, author.account.id), anyItem);
    await deleteItem(keys.status(b.id), anyItem);
    const after = await list(viewer.token);
    expect(after.body.map((s: { id: string }) => s.id)).toEqual([a.id]);
  });

  it('answers an empty list without a Link header when there is nothing', async () => {
    const viewer = await aUser();
    const res = await list(viewer.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.link).toBeUndefined();
  });

  it.each([
    ['no token', undefined, 401],
    ['an app token', 'APP', 422],
    ['a token without read:favourites', 'BOOKMARKS', 403],
  ])('refuses %s', async (_n, which, status) => {
    let token = which;
    if (which === 'APP') token = (await (await import('../support/factories')).anAppToken(['read'])).token;
    if (which === 'BOOKMARKS') token = (await aUser({ scopes: ['read:bookmarks'] })).token;
    const res = await list(token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('rejects a malformed limit with 422', async () => {
    const res = await list(fan.token, { limit: 'x' });
    expect(res.status).toBe(422);
  });
});
