// A moderator's sanctions on the paths that show accounts (lib/policy/sanctions.ts), as Mastodon 4.3 shows them:
// a suspended account's profile emptied with `suspended: true`, its statuses and lists empty, itself off others'
// lists, the directory and search; a silenced account `limited: true`, off the directory and off search for those
// who do not follow it. Each through the real handler against the emulators.
import { handler as showHandler } from '../../functions/accounts/show';
import { handler as lookupHandler } from '../../functions/accounts/lookup';
import { handler as statusesHandler } from '../../functions/accounts/statuses';
import { handler as followersHandler } from '../../functions/accounts/followers';
import { handler as followingHandler } from '../../functions/accounts/following';
import { handler as searchHandler } from '../../functions/accounts/search';
import { handler as searchV2Handler } from '../../functions/search/v2';
import { handler as verifyCredentials } from '../../functions/accounts/verify_credentials';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as directoryHandler } from '../../functions/directory/index';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as followRequestsHandler } from '../../functions/follow_requests/index';
import { handler as familiarHandler } from '../../functions/accounts/familiar_followers';
import { handler as suggestionsHandler } from '../../functions/suggestions/index';
import { addFavourite } from '../../lib/db/interactions';
import { handler as endorseHandler } from '../../functions/accounts/endorse';
import { handler as accountEndorsementsHandler } from '../../functions/accounts/endorsements';
import { handler as endorsementsHandler } from '../../functions/endorsements/index';
import { updateAccount } from '../../lib/db/accounts';
import { createFollowRequest } from '../../lib/db/follows';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { queueMessages, type QueueName } from '../../lib/queue/messages';
import { aFollow, aPostedStatus, aStoredStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

for (const queue of Object.keys(queueMessages) as QueueName[]) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));

const ids = (res: Answer): string[] => (res.body as { id: string }[]).map((a) => a.id);
const suspend = (u: UserFixture) => updateAccount(u.account.id, { suspendedAt: new Date().toISOString(), suspensionOrigin: 'local' });
const silence = (u: UserFixture) => updateAccount(u.account.id, { silencedAt: new Date().toISOString() });
const profile = async (u: UserFixture, name: string) => {
  const res = await call(updateCredentials, {
    method: 'PATCH',
    path: '/api/v1/accounts/update_credentials',
    form: { display_name: name, note: 'my bio', discoverable: 'true', 'fields_attributes[0][name]': 'site', 'fields_attributes[0][value]': 'example' },
    token: u.token,
  });
  expect(res.status).toBe(200);
};

describe('a suspended account', () => {
  let viewer: UserFixture;
  let gone: UserFixture;
  let friend: UserFixture;
  beforeAll(async () => {
    viewer = await aUser();
    gone = await aUser({ username: `gonesusp${Date.now() % 100000}` });
    friend = await aUser();
    await profile(gone, 'Gone Person');
    await aPostedStatus(gone.account, {});
    await aFollow(gone.account, friend.account);
    await aFollow(friend.account, gone.account);
    await aFollow(viewer.account, friend.account);
    await aFollow(friend.account, viewer.account);
    await aFollow(viewer.account, gone.account);
    for (const [by, of] of [[viewer, gone], [viewer, friend], [gone, friend]] as const) {
      const endorsed = await call(endorseHandler, { method: 'POST', path: `/api/v1/accounts/${of.account.id}/endorse`, pathParameters: { id: of.account.id }, token: by.token });
      expect(endorsed.status).toBe(200);
    }
    await suspend(gone);
  });

  test('GET /api/v1/accounts/:id and /lookup answer the emptied profile with suspended: true', async () => {
    for (const res of [
      await call(showHandler, { path: `/api/v1/accounts/${gone.account.id}`, pathParameters: { id: gone.account.id }, token: viewer.token }),
      await call(lookupHandler, { path: '/api/v1/accounts/lookup', query: { acct: gone.account.username } }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: gone.account.id, username: gone.account.username, display_name: '', note: '', fields: [], emojis: [], suspended: true, locked: false, discoverable: false });
      expect(res.body.avatar).toMatch(/\/avatars\/original\/missing\.png$/);
      expect(res.body.header).toMatch(/\/headers\/original\/missing\.png$/);
      expect(res.body.limited).toBeUndefined();
    }
  });

  test('its statuses, followers and following answer []', async () => {
    const params = { pathParameters: { id: gone.account.id }, token: viewer.token };
    for (const [handler, what] of [[statusesHandler, 'statuses'], [followersHandler, 'followers'], [followingHandler, 'following']] as const) {
      const res = await call(handler, { path: `/api/v1/accounts/${gone.account.id}/${what}`, ...params });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    }
  });

  test('it is absent from the lists of others', async () => {
    const params = { pathParameters: { id: friend.account.id }, token: viewer.token };
    const followers = await call(followersHandler, { path: `/api/v1/accounts/${friend.account.id}/followers`, ...params });
    expect(ids(followers)).toEqual([viewer.account.id]);
    const following = await call(followingHandler, { path: `/api/v1/accounts/${friend.account.id}/following`, ...params });
    expect(ids(following)).toEqual([viewer.account.id]);
  });

  test('it is absent from the directory and from account search by prefix (named exactly, it is shown suspended)', async () => {
    const dir = await call(directoryHandler, { path: '/api/v1/directory', query: { order: 'new', local: 'true', limit: '80' } });
    expect(dir.status).toBe(200);
    expect(ids(dir)).not.toContain(gone.account.id);
    const prefix = gone.account.username.slice(0, -1);
    const search = await call(searchHandler, { path: '/api/v1/accounts/search', query: { q: prefix }, token: viewer.token });
    expect(search.status).toBe(200);
    expect(ids(search)).not.toContain(gone.account.id);
    const v2 = await call(searchV2Handler, { path: '/api/v2/search', query: { q: prefix, type: 'accounts' }, token: viewer.token });
    expect(v2.status).toBe(200);
    expect((v2.body.accounts as { id: string }[]).map((a) => a.id)).not.toContain(gone.account.id);
    // Mastodon's exact match: the account named is answered, emptied, as lookup answers it.
    const exact = await call(searchV2Handler, { path: '/api/v2/search', query: { q: gone.account.username, type: 'accounts' }, token: viewer.token });
    expect((exact.body.accounts as { id: string; suspended?: boolean; display_name: string }[]).find((a) => a.id === gone.account.id)).toMatchObject({ suspended: true, display_name: '' });
  });

  test('it is off endorsements, and its own endorsements answer []', async () => {
    const mine = await call(endorsementsHandler, { path: '/api/v1/endorsements', token: viewer.token });
    expect(ids(mine)).toEqual([friend.account.id]);
    const viewers = await call(accountEndorsementsHandler, { path: `/api/v1/accounts/${viewer.account.id}/endorsements`, pathParameters: { id: viewer.account.id }, token: friend.token });
    expect(ids(viewers)).toEqual([friend.account.id]);
    const its = await call(accountEndorsementsHandler, { path: `/api/v1/accounts/${gone.account.id}/endorsements`, pathParameters: { id: gone.account.id }, token: friend.token });
    expect(its.status).toBe(200);
    expect(its.body).toEqual([]);
  });

  test('relationships leave it out unless with_suspended is asked', async () => {
    const query = { 'id[]': gone.account.id };
    const plain = await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query, token: viewer.token });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual([]);
    const withSuspended = await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { ...query, with_suspended: 'true' }, token: viewer.token });
    expect(ids(withSuspended)).toEqual([gone.account.id]);
  });

  test('following it is not possible (404)', async () => {
    const res = await call(followHandler, { method: 'POST', path: `/api/v1/accounts/${gone.account.id}/follow`, pathParameters: { id: gone.account.id }, token: viewer.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  test('its follow request is hidden, and it is off familiar followers', async () => {
    await createFollowRequest({ id: newId(), accountId: gone.account.id, targetAccountId: viewer.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });
    const requests = await call(followRequestsHandler, { path: '/api/v1/follow_requests', token: viewer.token });
    expect(requests.status).toBe(200);
    expect(ids(requests)).not.toContain(gone.account.id);
    // The viewer follows gone, which follows friend: gone would be a familiar follower of friend.
    const familiar = await call(familiarHandler, { path: '/api/v1/accounts/familiar_followers', query: { 'id[]': friend.account.id }, token: viewer.token });
    expect(familiar.status).toBe(200);
    expect((familiar.body as { accounts: { id: string }[] }[])[0]!.accounts.map((a) => a.id)).not.toContain(gone.account.id);
  });

  test('its own token is refused as Mastodon refuses a suspended login (403), so its profile is only shown emptied', async () => {
    const res = await call(verifyCredentials, { path: '/api/v1/accounts/verify_credentials', token: gone.token });
    expect(res.status).toBe(403);
  });
});

describe('a silenced account', () => {
  let viewer: UserFixture;
  let follower: UserFixture;
  let quiet: UserFixture;
  beforeAll(async () => {
    viewer = await aUser();
    follower = await aUser();
    quiet = await aUser({ username: `quietsil${Date.now() % 100000}` });
    await profile(quiet, 'Quiet Person');
    await aFollow(follower.account, quiet.account);
    await silence(quiet);
  });

  test('its profile is reachable, with limited: true', async () => {
    const res = await call(showHandler, { path: `/api/v1/accounts/${quiet.account.id}`, pathParameters: { id: quiet.account.id }, token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Quiet Person', note: expect.stringContaining('my bio'), limited: true });
    expect(res.body.suspended).toBeUndefined();
  });

  test('it is off the directory', async () => {
    const dir = await call(directoryHandler, { path: '/api/v1/directory', query: { order: 'new', local: 'true', limit: '80' } });
    expect(ids(dir)).not.toContain(quiet.account.id);
  });

  test('account search finds it for its followers only', async () => {
    const query = { q: quiet.account.username };
    const stranger = await call(searchHandler, { path: '/api/v1/accounts/search', query, token: viewer.token });
    expect(ids(stranger)).toEqual([]);
    const follows = await call(searchHandler, { path: '/api/v1/accounts/search', query, token: follower.token });
    expect(ids(follows)).toEqual([quiet.account.id]);
    const v2 = (token: string) => call(searchV2Handler, { path: '/api/v2/search', query: { ...query, type: 'accounts' }, token });
    expect(((await v2(viewer.token)).body.accounts as { id: string }[]).map((x) => x.id)).toEqual([]);
    expect(((await v2(follower.token)).body.accounts as { id: string }[]).map((x) => x.id)).toEqual([quiet.account.id]);
  });
});

describe('suggestions', () => {
  test('leave out suspended and silenced accounts', async () => {
    const user = await aUser();
    const [plain, gone, quiet] = [await aUser(), await aUser(), await aUser()];
    for (const target of [plain, gone, quiet]) await addFavourite(user.account.id, (await aStoredStatus(target.account)).id);
    await suspend(gone);
    await silence(quiet);
    const v1 = await call(suggestionsHandler, { path: '/api/v1/suggestions', token: user.token });
    expect(v1.status).toBe(200);
    expect(ids(v1)).toEqual([plain.account.id]);
  });
});
