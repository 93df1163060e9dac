// `hide_collections` (Mastodon's "hide your network"): an account that sets it through update_credentials or the
// profile API shows its followers and follows to itself only; others get empty lists through the API, and other
// servers the collections' sizes without any page (a page asked for is 403), as Mastodon's hide_results? and its
// ActivityPub follower/following controllers.
import { handler as apFollowers } from '../../functions/activitypub/followers';
import { handler as apFollowing } from '../../functions/activitypub/following';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as followersHandler } from '../../functions/accounts/followers';
import { handler as followingHandler } from '../../functions/accounts/following';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';

const AP_ACCEPT = 'application/activity+json';

const listOf = async (handler: typeof followersHandler, kind: 'followers' | 'following', owner: UserFixture, viewer?: UserFixture) => {
  const res = await call(handler, { path: `/api/v1/accounts/${owner.account.id}/${kind}`, pathParameters: { id: owner.account.id }, token: viewer?.token });
  expect(res.status).toBe(200);
  return (res.body as { id: string }[]).map((a) => a.id);
};
const apGet = (handler: typeof apFollowers, kind: 'followers' | 'following', owner: UserFixture, query?: string) =>
  call(handler, { path: `/users/${owner.account.username}/${kind}`, pathParameters: { username: owner.account.username }, headers: { accept: AP_ACCEPT }, query });
const hide = async (owner: UserFixture, value: boolean) =>
  expect((await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', json: { hide_collections: value }, token: owner.token })).status).toBe(200);

describe('an account that hides its network', () => {
  let owner: UserFixture;
  let fan: UserFixture;
  let friend: UserFixture;
  let stranger: UserFixture;
  beforeAll(async () => {
    [owner, fan, friend, stranger] = await Promise.all([aUser(), aUser(), aUser(), aUser()]);
    const follow = (who: UserFixture, whom: UserFixture) =>
      call(followHandler, { method: 'POST', path: `/api/v1/accounts/${whom.account.id}/follow`, pathParameters: { id: whom.account.id }, token: who.token });
    expect((await follow(fan, owner)).status).toBe(200);
    expect((await follow(owner, friend)).status).toBe(200);
  });

  it('shows its lists to everyone while it does not hide them', async () => {
    await hide(owner, false);
    expect(await listOf(followersHandler, 'followers', owner, stranger)).toEqual([fan.account.id]);
    expect(await listOf(followingHandler, 'following', owner)).toEqual([friend.account.id]);
    const outline = await apGet(apFollowers, 'followers', owner);
    expect(outline.body).toMatchObject({ type: 'OrderedCollection', totalItems: 1, first: expect.any(String) });
  });

  it('shows them to itself only through the API', async () => {
    await hide(owner, true);
    expect(await listOf(followersHandler, 'followers', owner, stranger)).toEqual([]);
    expect(await listOf(followingHandler, 'following', owner, stranger)).toEqual([]);
    expect(await listOf(followersHandler, 'followers', owner)).toEqual([]);
    // Even those listed in them see nothing: hiding is not for strangers only.
    expect(await listOf(followersHandler, 'followers', owner, fan)).toEqual([]);
    expect(await listOf(followersHandler, 'followers', owner, owner)).toEqual([fan.account.id]);
    expect(await listOf(followingHandler, 'following', owner, owner)).toEqual([friend.account.id]);
  });

  it('gives other servers the sizes only, and refuses a page', async () => {
    await hide(owner, true);
    for (const [handler, kind] of [[apFollowers, 'followers'], [apFollowing, 'following']] as const) {
      const outline = await apGet(handler, kind, owner);
      expect(outline.status).toBe(200);
      expect(outline.body).toMatchObject({ type: 'OrderedCollection', totalItems: 1 });
      expect(outline.body).not.toHaveProperty('first');
      const page = await apGet(handler, kind, owner, 'page=true');
      expect(page.status).toBe(403);
      expect(page.body).toEqual({ error: 'This action is not allowed' });
    }
  });
});
