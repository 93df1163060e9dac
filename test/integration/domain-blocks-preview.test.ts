// Mastodon 4.4's GET /api/v1/domain_blocks/preview: how many accounts on a domain the caller follows and how
// many follow the caller (REST::DomainBlockPreviewSerializer's following_count and followers_count), read from
// the follower inbox counts and the smaller of the caller's follows and the domain's known accounts.
import { handler as previewHandler } from '../../functions/domain_blocks/preview';
import type { Account } from '../../lib/db/accounts';
import { createFollow, deleteFollow } from '../../lib/db/follows';
import { newId } from '../../lib/ids';
import { call, warmContainer } from '../support/http';
import { aBareAccount, anAppToken, aRemoteAccount, aUser, type UserFixture } from '../support/factories';

const preview = (domain: string | undefined, token?: string) =>
  call(previewHandler, { path: '/api/v1/domain_blocks/preview', query: domain === undefined ? {} : { domain }, token });

const edge = (follower: Account, followed: Account) => ({ id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });
/** The follow as the follow endpoints write it: both counters, and a remote follower counted under its inbox. */
const inboxOf = (a: Account) => a.sharedInboxUrl ?? a.inboxUrl ?? undefined;
async function follows(follower: Account, followed: Account) {
  expect(await createFollow(edge(follower, followed), follower.domain ? { followerInbox: inboxOf(follower) } : {})).toBe(true);
}

let user: UserFixture;
let near: Account[]; // preview-near.example: 3 accounts known, fewer than the user follows
let far: Account[]; // preview-far.example: 6 accounts known, more than the user follows

beforeAll(async () => {
  user = await aUser();
  near = [
    (await aRemoteAccount({ domain: 'preview-near.example' })).account,
    (await aRemoteAccount({ domain: 'preview-near.example' })).account,
    // An actor without a shared inbox is counted under its own inbox, on the same host.
    (await aRemoteAccount({ domain: 'preview-near.example', sharedInboxUrl: null })).account,
  ];
  far = [];
  for (let i = 0; i < 6; i++) far.push((await aRemoteAccount({ domain: 'preview-far.example' })).account);
  const elsewhere = (await aRemoteAccount({ domain: 'preview-elsewhere.example' })).account;
  const local = await aBareAccount();
  // The user follows 2 of near, 1 of far, one elsewhere and one local account: 5 in all.
  for (const a of [near[0]!, near[1]!, far[0]!, elsewhere, local]) await follows(user.account, a);
  // Followed by near[0] and near[2] (two inboxes on the host), far[1], elsewhere and the local account.
  for (const a of [near[0]!, near[2]!, far[1]!, elsewhere, local]) await follows(a, user.account);
});

describe('GET /api/v1/domain_blocks/preview', () => {
  it('counts the follows and followers on a domain with fewer known accounts than the user follows', async () => {
    const res = await preview('preview-near.example', user.token);
    expect([res.status, res.body]).toEqual([200, { following_count: 2, followers_count: 2 }]);
  });

  it('counts them on a domain with more known accounts than the user follows (the user’s follows are read)', async () => {
    const res = await preview('preview-far.example', user.token);
    expect([res.status, res.body]).toEqual([200, { following_count: 1, followers_count: 1 }]);
  });

  it('reads the domain as a block does: case and a trailing slash do not matter', async () => {
    expect((await preview('Preview-Near.EXAMPLE/', user.token)).body).toEqual({ following_count: 2, followers_count: 2 });
  });

  it('a domain nobody is on, and a user who follows nobody, answer zeros', async () => {
    expect((await preview('nobody-here.example', user.token)).body).toEqual({ following_count: 0, followers_count: 0 });
    const loner = await aUser();
    expect((await preview('preview-near.example', loner.token)).body).toEqual({ following_count: 0, followers_count: 0 });
  });

  it('follows in the other direction and ended follows are not counted', async () => {
    const viewer = await aUser();
    const [a, b] = [(await aRemoteAccount({ domain: 'preview-ended.example' })).account, (await aRemoteAccount({ domain: 'preview-ended.example' })).account];
    await follows(viewer.account, a);
    await follows(b, viewer.account);
    expect((await preview('preview-ended.example', viewer.token)).body).toEqual({ following_count: 1, followers_count: 1 });
    expect(await deleteFollow(viewer.account.id, a.id)).toBe(true);
    expect(await deleteFollow(b.id, viewer.account.id, { followerInbox: inboxOf(b) })).toBe(true);
    expect((await preview('preview-ended.example', viewer.token)).body).toEqual({ following_count: 0, followers_count: 0 });
  });

  it.each([
    ['no domain', undefined, "can't be blank"],
    ['a blank domain', ' ', "can't be blank"],
    ['a URL', 'https://preview-near.example/', 'is invalid'],
    ['a handle', 'someone@preview-near.example', 'is invalid'],
    ['a wildcard', '*.example', 'is invalid'],
  ])('%s is 422 naming domain', async (_, domain, message) => {
    const res = await preview(domain, user.token);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('domain');
    if (domain !== undefined) expect(res.body.error).toContain(message);
  });

  it('refuses no token (401), a bad token (401), an app token (422) and a token without write:blocks (403)', async () => {
    const app = await anAppToken(['read', 'write', 'follow']);
    const readOnly = await aUser({ scopes: ['read'] });
    const answers = [
      await preview('preview-near.example'),
      await preview('preview-near.example', 'not-a-token'),
      await preview('preview-near.example', app.token),
      await preview('preview-near.example', readOnly.token),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 422, 403]);
    for (const r of answers) expect(r.body).toEqual({ error: expect.any(String) });
    // The good twins: write:blocks alone, and the legacy follow scope, are enough (Mastodon: follow, write, write:blocks).
    for (const scopes of [['write:blocks'], ['follow']]) {
      expect((await preview('preview-near.example', (await aUser({ scopes })).token)).status).toBe(200);
    }
  });

  describe('what it costs', () => {
    beforeAll(() => {
      process.env.EXPOSE_METRICS = '1';
    });
    afterAll(() => {
      delete process.env.EXPOSE_METRICS;
    });

    it('reads no follower one by one: a handful of calls on either side', async () => {
      await warmContainer();
      const calls = async (domain: string) => Number((await preview(domain, user.token)).headers['x-db-calls']);
      // Authentication and the rate-limit counter (3), two inbox Queries, the domain's accounts (one Query), then
      // one BatchGet of the user's edges to them, or one Query of the user's 5 follows and one BatchGet of them.
      expect(await calls('preview-near.example')).toBeLessThanOrEqual(7);
      expect(await calls('preview-far.example')).toBeLessThanOrEqual(8);
    });
  });
});
