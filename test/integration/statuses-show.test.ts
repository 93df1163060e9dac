import { handler as context } from '../../functions/statuses/context';
import { handler as create } from '../../functions/statuses/create';
import { handler as show } from '../../functions/statuses/show';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { addBookmark, addFavourite, muteConversation } from '../../lib/db/interactions';
import { registerInlineWorker } from '../../lib/queue';
import { call } from '../support/http';
import { aFollow, anAppToken, aPostedReblog, aStoredStatus, aUser, type UserFixture } from '../support/factories';

registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);

const get = (id: string, token?: string) => call(show, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });
const ctx = (id: string, token?: string) => call(context, { path: `/api/v1/statuses/${id}/context`, pathParameters: { id }, token });
const post = async (user: UserFixture, body: Record<string, unknown>) => {
  const res = await call(create, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};

describe('GET /api/v1/statuses/:id', () => {
  let author: UserFixture;
  let follower: UserFixture;
  let mentioned: UserFixture;
  let stranger: UserFixture;
  beforeAll(async () => {
    [author, follower, mentioned, stranger] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    await aFollow(follower.account, author.account);
  });

  it('shows a public status without a token', async () => {
    const status = await post(author, { status: 'hello' });
    const res = await get(status.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: status.id, content: '<p>hello</p>', favourited: false, account: { id: author.account.id } });
    expect(res.body).not.toHaveProperty('pinned');
  });

  it.each([
    ['public', { anonymous: true, stranger: true, follower: true, mentioned: true, author: true }],
    ['unlisted', { anonymous: true, stranger: true, follower: true, mentioned: true, author: true }],
    ['private', { anonymous: false, stranger: false, follower: true, mentioned: true, author: true }],
    ['direct', { anonymous: false, stranger: false, follower: false, mentioned: true, author: true }],
  ])('applies the visibility rules to a %s status', async (visibility, expected) => {
    const status = await post(author, { status: `for @${mentioned.account.username}`, visibility });
    const seen = {
      anonymous: (await get(status.id)).status,
      stranger: (await get(status.id, stranger.token)).status,
      follower: (await get(status.id, follower.token)).status,
      mentioned: (await get(status.id, mentioned.token)).status,
      author: (await get(status.id, author.token)).status,
    };
    expect(seen).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v ? 200 : 404])));
  });

  it('shows the viewer\'s flags', async () => {
    const status = await post(author, { status: 'flags' });
    await addFavourite(stranger.account.id, status.id);
    await addBookmark(stranger.account.id, status.id);
    await muteConversation(stranger.account.id, status.id);
    const res = await get(status.id, stranger.token);
    expect(res.body).toMatchObject({ favourited: true, bookmarked: true, muted: true, reblogged: false, favourites_count: 1 });
    const own = await get(status.id, author.token);
    expect(own.body).toMatchObject({ favourited: false, bookmarked: false, muted: false, pinned: false });
  });

  it('nests the reblogged status', async () => {
    const original = await aStoredStatus(author.account);
    const reblog = await aPostedReblog(stranger.account, original);
    const res = await get(reblog.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: reblog.id, content: '', account: { id: stranger.account.id }, reblog: { id: original.id, account: { id: author.account.id } } });
  });

  it.each([
    ['an unknown id', '123456789', undefined, 404],
    ['a malformed id', 'abc', undefined, 404],
    ['an oversized id', '9'.repeat(30), undefined, 404],
    ['an invalid token', undefined, 'nope', 401],
  ])('answers %s', async (_name, id, token, status) => {
    const target = id ?? (await post(author, { status: 'x' })).id;
    const res = await get(target, token);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: status === 404 ? 'Record not found' : expect.any(String) });
  });

  it('refuses a token without read:statuses', async () => {
    const status = await post(author, { status: 'x' });
    const { token } = await aUser({ scopes: ['write'] });
    expect((await get(status.id, token)).status).toBe(403);
    expect((await get(status.id, (await anAppToken(['read'])).token)).status).toBe(200);
  });

  it('hides a private status from an app token', async () => {
    const status = await post(author, { status: 'x', visibility: 'private' });
    expect((await get(status.id, (await anAppToken(['read'])).token)).status).toBe(404);
  });
});

describe('GET /api/v1/statuses/:id/context', () => {
  it('answers ancestors up the thread and descendants in thread order, filtered by visibility', async () => {
    const [alice, bob, carol] = await Promise.all([aUser(), aUser(), aUser()]);
    await aFollow(carol.account, bob.account);
    const root = await post(alice, { status: 'root' });
    const a = await post(bob, { status: 'a', in_reply_to_id: root.id });
    const a1 = await post(alice, { status: 'a1', in_reply_to_id: a.id });
    const b = await post(carol, { status: 'b', in_reply_to_id: root.id });
    const hidden = await post(bob, { status: 'followers only', in_reply_to_id: a.id, visibility: 'private' });
    const a11 = await post(bob, { status: 'a11', in_reply_to_id: a1.id });

    const fromRoot = await ctx(root.id);
    expect(fromRoot.status).toBe(200);
    expect(fromRoot.body.ancestors).toEqual([]);
    expect(fromRoot.body.descendants.map((s: { id: string }) => s.id)).toEqual([a.id, a1.id, a11.id, b.id]);

    const asCarol = await ctx(root.id, carol.token);
    expect(asCarol.body.descendants.map((s: { id: string }) => s.id)).toEqual([a.id, a1.id, a11.id, hidden.id, b.id]);

    const fromLeaf = await ctx(a11.id);
    expect(fromLeaf.body.ancestors.map((s: { id: string }) => s.id)).toEqual([root.id, a.id, a1.id]);
    expect(fromLeaf.body.descendants).toEqual([]);
  });

  it.each([
    ['an unknown status', async () => '123456789', undefined],
    ['a malformed id', async () => 'x1', undefined],
    ['a private status, without a token', async () => (await aStoredStatus((await aUser()).account, { visibility: 'private' })).id, undefined],
  ])('answers 404 for %s', async (_name, id) => {
    const res = await ctx(await id());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });
});
