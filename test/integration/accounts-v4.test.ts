// The Mastodon 4 account endpoints of issue 14, through their HTTP handlers against the
// emulators: private notes (and `note` in Relationships), removing an avatar or header,
// familiar followers, v2 suggestions and removing a follower; each with a table of bad
// input, every bad case beside a good twin so the table can fail.
import sharp from 'sharp';
import { handler as blockHandler } from '../../functions/accounts/block';
import { handler as familiarHandler } from '../../functions/accounts/familiar_followers';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as noteHandler } from '../../functions/accounts/note';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as removeFollowerHandler } from '../../functions/accounts/remove_from_followers';
import { handler as updateCredentials } from '../../functions/accounts/update_credentials';
import { handler as deleteAvatarHandler } from '../../functions/profile/delete_avatar';
import { handler as deleteHeaderHandler } from '../../functions/profile/delete_header';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as dismissHandler } from '../../functions/suggestions/delete';
import { handler as suggestionsV1Handler } from '../../functions/suggestions/index';
import { handler as suggestionsV2Handler } from '../../functions/suggestions/index_v2';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { accountById, updateAccount, type Account } from '../../lib/db/accounts';
import { followerInboxesOf } from '../../lib/db/follower_inboxes';
import { createFollow, followEdge } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { query } from '../../lib/db/table';
import { apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { z } from 'zod';
import { aBareAccount, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call, warmContainer, type Answer } from '../support/http';
import { multipart } from '../support/multipart';

// X-Db-Calls on every answer: the cost of each endpoint is part of what is tested.
process.env.EXPOSE_METRICS = '1';

type Delivery = { inbox: string; activity: Record<string, unknown> };
const deliveries: Delivery[] = [];
registerInlineWorker('deliver', async (event) => {
  for (const r of event.Records) deliveries.push(JSON.parse(r.body) as Delivery);
  return { batchItemFailures: [] };
});
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', async () => ({ batchItemFailures: [] }));
beforeEach(() => {
  deliveries.length = 0;
});

const MISSING_AVATAR = 'https://social.example/avatars/original/missing.png';
const MISSING_HEADER = 'https://social.example/headers/original/missing.png';

// ---- the endpoints ----
const note = (id: string, token: string | undefined, body: Record<string, unknown> | undefined) =>
  call(noteHandler, { method: 'POST', path: `/api/v1/accounts/${id}/note`, pathParameters: { id }, token, ...(body ? { json: body } : {}) });
const relationships = async (token: string, ids: string[]) =>
  (await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id: ids }, token })).body as Record<string, unknown>[];
const familiar = (token: string | undefined, q: Record<string, string | string[]> | string) =>
  call(familiarHandler, { path: '/api/v1/accounts/familiar_followers', query: q, token });
const removeFollower = (id: string, token: string | undefined) =>
  call(removeFollowerHandler, { method: 'POST', path: `/api/v1/accounts/${id}/remove_from_followers`, pathParameters: { id }, token });
const follow = (id: string, token: string) => call(followHandler, { method: 'POST', path: `/api/v1/accounts/${id}/follow`, pathParameters: { id }, token });
const deleteAvatar = (token: string | undefined) => call(deleteAvatarHandler, { method: 'DELETE', path: '/api/v1/profile/avatar', token });
const deleteHeader = (token: string | undefined) => call(deleteHeaderHandler, { method: 'DELETE', path: '/api/v1/profile/header', token });
const suggestionsV2 = (token: string | undefined, q: Record<string, string> = {}) => call(suggestionsV2Handler, { path: '/api/v2/suggestions', query: q, token });

/** `follower` follows `followed` with both counters, as the follow transaction writes it. */
async function edge(follower: Account, followed: Account, opts: { followerInbox?: string } = {}) {
  const record = { id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
  expect(await createFollow(record, opts)).toBe(true);
  return record;
}

const counts = async (account: Account) => {
  const stored = await accountById(account.id);
  return { followers: stored?.followersCount, following: stored?.followingCount };
};

const expectError = (res: Answer, status: number, message?: RegExp) => {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: message ? expect.stringMatching(message) : expect.any(String) });
};

// ---- notes ----

describe('POST /api/v1/accounts/:id/note', () => {
  let alice: UserFixture;
  let bob: UserFixture;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([aUser(), aUser()]);
    // A warm container: what every request of a cold one reads once (the operator's IP rules) is not counted below.
    await relationships(alice.token, [bob.account.id]);
  });

  it('stores a note private to its writer, shown as `note` in every Relationship it reads', async () => {
    const res = await note(bob.account.id, alice.token, { comment: 'Met at the conference 🎉' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bob.account.id, note: 'Met at the conference 🎉', following: false });
    // Token, account and request counter (every authenticated request), then the relationship batch and the write.
    expect(res.headers['x-db-calls']).toBe('5');

    expect((await relationships(alice.token, [bob.account.id]))[0]).toMatchObject({ id: bob.account.id, note: 'Met at the conference 🎉' });
    // Private: bob's view of alice, and a third account's view of bob, carry no note.
    const carol = await aUser();
    expect((await relationships(bob.token, [alice.account.id]))[0]).toMatchObject({ note: '' });
    expect((await relationships(carol.token, [bob.account.id]))[0]).toMatchObject({ note: '' });
    // Other actions answering a Relationship read it too.
    expect((await follow(bob.account.id, alice.token)).body).toMatchObject({ following: true, note: 'Met at the conference 🎉' });
  });

  it('replaces the note, and a blank or missing comment removes it', async () => {
    const dave = await aBareAccount();
    expect((await note(dave.id, alice.token, { comment: 'first' })).body.note).toBe('first');
    expect((await note(dave.id, alice.token, { comment: 'second' })).body.note).toBe('second');
    expect((await relationships(alice.token, [dave.id]))[0]!.note).toBe('second');
    expect((await note(dave.id, alice.token, { comment: '  \n ' })).body.note).toBe('');
    expect((await relationships(alice.token, [dave.id]))[0]!.note).toBe('');
    await note(dave.id, alice.token, { comment: 'again' });
    expect((await note(dave.id, alice.token, undefined)).body.note).toBe('');
    expect((await relationships(alice.token, [dave.id]))[0]!.note).toBe('');
  });

  it('counts the 2,000 characters as characters: 2,000 emoji are allowed', async () => {
    const erin = await aBareAccount();
    const res = await note(erin.id, alice.token, { comment: '🐘'.repeat(2000) });
    expect(res.status).toBe(200);
    expect([...(res.body.note as string)]).toHaveLength(2000);
  });

  describe('refuses bad input and stores nothing', () => {
    let target: Account;
    let readOnly: string;
    beforeAll(async () => {
      target = await aBareAccount();
      readOnly = (await aUser({ scopes: ['read'] })).token;
    });
    const good = () => ({ id: target.id, token: alice.token, body: { comment: 'fine' } as Record<string, unknown> });
    it.each([
      ['an unknown account', () => ({ ...good(), id: newId() }), 404],
      ['a malformed id', () => ({ ...good(), id: 'not-an-id' }), 404],
      ['a comment of the wrong type', () => ({ ...good(), body: { comment: 42 } }), 422],
      ['a comment as a list', () => ({ ...good(), body: { comment: ['a'] } }), 422],
      ['a comment of 2,001 characters', () => ({ ...good(), body: { comment: 'x'.repeat(2001) } }), 422],
      ['a comment far over the limit', () => ({ ...good(), body: { comment: 'x'.repeat(100_000) } }), 422],
      ['a token without write:accounts', () => ({ ...good(), token: readOnly }), 403],
      ['no token', () => ({ ...good(), token: undefined as unknown as string }), 401],
    ])('%s', async (_, input, status) => {
      const { id, token, body } = input();
      const res = await note(id, token, body);
      expectError(res, status);
      expect((await relationships(alice.token, [target.id]))[0]!.note).toBe('');
      // The good twin goes through, then is cleared for the next row.
      const twin = good();
      expect((await note(twin.id, twin.token, { comment: 'x'.repeat(2000) })).status).toBe(200);
      expect((await note(twin.id, twin.token, { comment: '' })).body.note).toBe('');
    });
  });
});

// ---- profile images ----

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();

async function withImages(user: UserFixture) {
  const body = await multipart({
    avatar: { data: await png(400, 400), filename: 'a.png', type: 'image/png' },
    header: { data: await png(1500, 500), filename: 'h.png', type: 'image/png' },
  });
  const res = await call(updateCredentials, { method: 'PATCH', path: '/api/v1/accounts/update_credentials', token: user.token, body });
  expect(res.status).toBe(200);
  return { avatar: res.body.avatar as string, header: res.body.header as string };
}

describe('DELETE /api/v1/profile/avatar and /header', () => {
  it('puts back the default avatar, deletes the stored object and tells remote followers', async () => {
    const user = await aUser();
    const follower = (await aRemoteAccount({ domain: 'pics.example', keyless: true })).account;
    await edge(follower, user.account, { followerInbox: follower.sharedInboxUrl! });
    const before = await withImages(user);
    expect((await fetch(before.avatar)).status).toBe(200);
    deliveries.length = 0;

    const res = await deleteAvatar(user.token);
    expect(res.status).toBe(200);
    // Token, account, request counter; the conditional update, the follower inboxes, and what delivery reads.
    expect(res.headers['x-db-calls']).toBe('6');
    expect(res.body).toMatchObject({ id: user.account.id, avatar: MISSING_AVATAR, avatar_static: MISSING_AVATAR, header: before.header });
    expect(res.body.source).toBeDefined(); // a CredentialAccount
    expect((await fetch(before.avatar)).status).toBe(404);
    expect((await fetch(before.header)).status).toBe(200);
    expect((await accountById(user.account.id))?.avatarKey).toBeNull();
    const updates = deliveries.filter((d) => d.activity.type === 'Update');
    expect(updates.map((d) => d.inbox)).toEqual(['https://pics.example/inbox']);
    expect(updates[0]!.activity).toMatchObject({ actor: apUrls.actor(user.account.username), object: { type: 'Person' } });
    expect((updates[0]!.activity.object as Record<string, unknown>).icon).toBeUndefined();

    // Again: nothing left to remove, nothing sent.
    deliveries.length = 0;
    const again = await deleteAvatar(user.token);
    expect(again.status).toBe(200);
    expect(again.body.avatar).toBe(MISSING_AVATAR);
    expect(deliveries).toEqual([]);
  });

  it('removes the header the same way, keeping the avatar', async () => {
    const user = await aUser();
    const before = await withImages(user);
    const res = await deleteHeader(user.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ header: MISSING_HEADER, header_static: MISSING_HEADER, avatar: before.avatar });
    expect((await fetch(before.header)).status).toBe(404);
    expect((await fetch(before.avatar)).status).toBe(200);
  });

  describe('refuses callers without write:accounts and keeps the image', () => {
    it.each([
      ['avatar', deleteAvatar, 'avatar'],
      ['header', deleteHeader, 'header'],
    ] as const)('%s', async (_, remove, field) => {
      const user = await aUser();
      const readOnly = await aUser({ scopes: ['read'] });
      const images = await withImages(user);
      // A read-only token of another user, and no token at all.
      expectError(await remove(readOnly.token), 403);
      expectError(await remove(undefined), 401);
      const { issueAccessToken } = await import('../../lib/tokens');
      const weak = (await issueAccessToken(user.app, user.account.id, ['read', 'write:statuses'])).raw;
      expectError(await remove(weak), 403);
      expect((await fetch(images[field])).status).toBe(200);
      // The good twin.
      expect((await remove(user.token)).status).toBe(200);
      expect((await fetch(images[field])).status).toBe(404);
    });
  });
});

// ---- familiar followers ----

describe('GET /api/v1/accounts/familiar_followers', () => {
  let viewer: UserFixture;
  let a: Account, b: Account, c: Account, d: Account;
  let target: Account;
  let popular: Account;
  let stranger: Account;
  beforeAll(async () => {
    viewer = await aUser();
    [a, b, c, d, target, popular, stranger] = (await Promise.all(Array.from({ length: 7 }, () => aBareAccount()))) as Account[] as [Account, Account, Account, Account, Account, Account, Account];
    for (const f of [a, b, c]) await edge(viewer.account, f);
    // target: followed by a and b (whom the viewer follows) and d (whom it does not); no more followers than the
    // viewer follows, so its followers are read.
    for (const f of [a, b, d]) await edge(f, target);
    // popular: more followers than the viewer follows, so the edges from the viewer's follows are read.
    for (const f of [c, d, ...(await Promise.all(Array.from({ length: 3 }, () => aBareAccount())))]) await edge(f, popular);
  });

  it('lists, for each account, the accounts the viewer follows that follow it', async () => {
    const res = await familiar(viewer.token, { id: [target.id, popular.id, stranger.id] });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries((res.body as { id: string; accounts: { id: string }[] }[]).map((f) => [f.id, f.accounts.map((x) => x.id).sort()]));
    expect(res.body.map((f: { id: string }) => f.id)).toEqual([target.id, popular.id, stranger.id]);
    expect(byId[target.id]).toEqual([a.id, b.id].sort());
    expect(byId[popular.id]).toEqual([c.id]);
    expect(byId[stranger.id]).toEqual([]);
    expect(res.body[0].accounts[0]).toMatchObject({ username: expect.any(String), acct: expect.any(String) });
    // Token, account and request counter, then: the targets (BatchGet), the viewer's follows (Query), target's
    // followers (Query), the edges from the viewer's follows to popular (BatchGet), the familiar accounts (BatchGet).
    expect(res.headers['x-db-calls']).toBe('8');
  });

  it('is empty for someone who follows nobody', async () => {
    const loner = await aUser();
    expect((await familiar(loner.token, { id: [target.id] })).body).toEqual([{ id: target.id, accounts: [] }]);
  });

  it('leaves out unknown, malformed and unconfirmed ids, and repeats', async () => {
    const pending = await aBareAccount({ approved: false });
    const res = await familiar(viewer.token, `id[]=${newId()}&id[]=abc&id[]=${pending.id}&id[]=${target.id}&id[]=${target.id}`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: { id: string }) => f.id)).toEqual([target.id]);
    // A single `id=` works too; no id at all is an empty list.
    expect((await familiar(viewer.token, { id: target.id })).body).toHaveLength(1);
    expect((await familiar(viewer.token, {})).body).toEqual([]);
  });

  describe('refuses bad input', () => {
    let writeOnly: string;
    beforeAll(async () => {
      writeOnly = (await aUser({ scopes: ['write'] })).token;
    });
    it.each([
      ['a token without read:follows', () => ({ token: writeOnly, q: { id: [target.id] } }), 403],
      ['no token', () => ({ token: undefined, q: { id: [target.id] } }), 401],
      ['an oversized id', () => ({ token: viewer.token, q: { id: ['1'.repeat(41)] } }), 422],
      ['more than 1,000 ids', () => ({ token: viewer.token, q: { id: Array.from({ length: 1001 }, () => target.id) } }), 422],
    ])('%s', async (_, input, status) => {
      const { token, q } = input();
      expectError(await familiar(token, q), status);
      const twin = await familiar(viewer.token, { id: [target.id] });
      expect(twin.status).toBe(200);
      expect(twin.body[0].accounts).toHaveLength(2);
    });
  });
});

// ---- v2 suggestions ----

describe('GET /api/v2/suggestions', () => {
  it('suggests discoverable friends of friends first, then active local accounts, with their sources', async () => {
    const viewer = await aUser();
    const [f1, f2, x, y, hidden, poster, quiet] = await Promise.all(Array.from({ length: 7 }, () => aUser()));
    for (const u of [x, y, poster, f1]) await updateAccount(u!.account.id, { discoverable: true });
    await edge(viewer.account, f1!.account);
    await edge(viewer.account, f2!.account);
    await edge(f1!.account, x!.account);
    await edge(f2!.account, x!.account);
    await edge(f1!.account, y!.account);
    await edge(f2!.account, hidden!.account); // not discoverable
    await edge(f2!.account, viewer.account); // the viewer itself is never suggested
    for (const u of [poster, quiet, f1, viewer]) {
      expect((await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'hello' }, token: u!.token })).status).toBe(200);
    }

    const res = await suggestionsV2(viewer.token);
    expect(res.status).toBe(200);
    const mine = new Set([x, y, hidden, poster, quiet, f1, f2, viewer].map((u) => u!.account.id));
    const listed = (res.body as { source: string; sources: string[]; account: { id: string } }[]).filter((s) => mine.has(s.account.id));
    expect(listed.map((s) => [s.account.id, s.sources, s.source])).toEqual([
      [x!.account.id, ['friends_of_friends'], 'past_interactions'],
      [y!.account.id, ['friends_of_friends'], 'past_interactions'],
      [poster!.account.id, ['most_followed'], 'global'],
    ]);
    expect(listed[0]!.account).toMatchObject({ username: x!.account.username, discoverable: true });
    // Token, account and request counter, then: the viewer's follows and the latest local posts (2 Queries; its
    // blocks, blocked-by and mutes are not read: its account says it has none, lib/db/viewer_summary.ts), the
    // follows of its 2 friends (2 Queries, at most FRIENDS_SAMPLE), the candidates' accounts and dismissals
    // (2 BatchGets of at most CANDIDATES_READ keys).
    expect(res.headers['x-db-calls']).toBe('9');

    // Dismissed and blocked accounts go; v1 is still the list of past interactions.
    expect((await call(dismissHandler, { method: 'DELETE', path: `/api/v1/suggestions/${y!.account.id}`, pathParameters: { account_id: y!.account.id }, token: viewer.token })).status).toBe(200);
    const block = await call(blockHandler, { method: 'POST', path: `/api/v1/accounts/${poster!.account.id}/block`, pathParameters: { id: poster!.account.id }, token: viewer.token });
    expect(block.status).toBe(200);
    const after = (await suggestionsV2(viewer.token, { limit: '80' })).body as { account: { id: string } }[];
    expect(after.map((s) => s.account.id).filter((id) => mine.has(id))).toEqual([x!.account.id]);
    expect((await suggestionsV2(viewer.token, { limit: '1' })).body).toHaveLength(1);

    const v1 = await call(suggestionsV1Handler, { path: '/api/v1/suggestions', token: viewer.token });
    expect(v1.status).toBe(200);
    expect(Array.isArray(v1.body)).toBe(true);
  });

  it('is empty for a new user on a quiet instance of non-discoverable accounts', async () => {
    const newcomer = await aUser();
    const res = await suggestionsV2(newcomer.token);
    expect(res.status).toBe(200);
    for (const s of res.body as { account: { discoverable: boolean } }[]) expect(s.account.discoverable).toBe(true);
  });

  describe('refuses bad input', () => {
    let viewer: UserFixture;
    let writeOnly: string;
    beforeAll(async () => {
      viewer = await aUser();
      writeOnly = (await aUser({ scopes: ['write'] })).token;
    });
    it.each([
      ['a token without read', () => ({ token: writeOnly, q: {} }), 403],
      ['no token', () => ({ token: undefined, q: {} }), 401],
      ['a limit that is not a number', () => ({ token: viewer.token, q: { limit: 'many' } }), 422],
      ['a negative limit', () => ({ token: viewer.token, q: { limit: '-1' } }), 422],
    ])('%s', async (_, input, status) => {
      const { token, q } = input();
      expectError(await suggestionsV2(token, q as Record<string, string>), status);
      expect((await suggestionsV2(viewer.token, { limit: '5' })).status).toBe(200);
    });
  });
});

// ---- remove from followers ----

const anyItem = z.record(z.unknown());
const homeAuthors = async (account: Account) =>
  (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.homePartition(account.id) } }, anyItem)).items.map((e) => String(e.accountId));

describe('POST /api/v1/accounts/:id/remove_from_followers', () => {
  it('removes a local follower: the edge, both counters and the remover’s statuses in its home', async () => {
    const [viewer, fan] = await Promise.all([aUser(), aUser()]);
    expect((await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: { status: 'for followers', visibility: 'private' }, token: viewer.token })).status).toBe(200);
    expect((await follow(viewer.account.id, fan.token)).body).toMatchObject({ following: true });
    expect(await homeAuthors(fan.account)).toContain(viewer.account.id);
    expect(await counts(viewer.account)).toEqual({ followers: 1, following: 0 });

    await warmContainer();
    const res = await removeFollower(fan.account.id, viewer.token);
    expect(res.status).toBe(200);
    // Token, account, request counter; the relationship batch, the transaction, the home Query and its BatchWrite.
    expect(res.headers['x-db-calls']).toBe('7');
    expect(res.body).toMatchObject({ id: fan.account.id, followed_by: false, following: false });
    expect(await followEdge(fan.account.id, viewer.account.id)).toBeUndefined();
    expect(await counts(viewer.account)).toEqual({ followers: 0, following: 0 });
    expect(await counts(fan.account)).toEqual({ followers: 0, following: 0 });
    expect(await homeAuthors(fan.account)).not.toContain(viewer.account.id);
    expect(deliveries).toEqual([]);
    expect((await relationships(fan.token, [viewer.account.id]))[0]).toMatchObject({ following: false });
  });

  it('removes a remote follower and sends its server a Reject of its Follow', async () => {
    const viewer = await aUser();
    const remote = (await aRemoteAccount({ domain: 'far.example', keyless: true })).account;
    const activityId = `https://far.example/${newId()}`;
    const record = { id: newId(), followerId: remote.id, followedId: viewer.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString(), activityId };
    expect(await createFollow(record, { followerInbox: remote.sharedInboxUrl! })).toBe(true);
    expect(await followerInboxesOf(viewer.account.id)).toEqual([{ inbox: 'https://far.example/inbox', followers: 1 }]);

    await warmContainer();
    const res = await removeFollower(remote.id, viewer.token);
    expect(res.status).toBe(200);
    // Token, account, request counter; the relationship batch, the transaction, and what delivery reads.
    expect(res.headers['x-db-calls']).toBe('7');
    expect(res.body).toMatchObject({ id: remote.id, followed_by: false });
    expect(await counts(viewer.account)).toEqual({ followers: 0, following: 0 });
    expect(await followerInboxesOf(viewer.account.id)).toEqual([]);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.inbox).toBe(remote.inboxUrl);
    expect(deliveries[0]!.activity).toMatchObject({
      type: 'Reject',
      actor: apUrls.actor(viewer.account.username),
      object: { id: activityId, type: 'Follow', actor: remote.uri },
    });
  });

  it('changes nothing when the account does not follow the viewer', async () => {
    const [viewer, other] = await Promise.all([aUser(), aUser()]);
    await follow(other.account.id, viewer.token); // the viewer follows it, not the other way
    const res = await removeFollower(other.account.id, viewer.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: true, followed_by: false });
    expect(await counts(viewer.account)).toEqual({ followers: 0, following: 1 });
    expect(deliveries).toEqual([]);
  });

  describe('refuses bad input and keeps the follower', () => {
    let viewer: UserFixture;
    let fan: UserFixture;
    let readOnly: string;
    beforeAll(async () => {
      [viewer, fan] = await Promise.all([aUser(), aUser()]);
      readOnly = (await import('../../lib/tokens').then((t) => t.issueAccessToken(viewer.app, viewer.account.id, ['read', 'write:statuses']))).raw;
    });
    it.each([
      ['an unknown account', () => ({ id: newId(), token: viewer.token }), 404],
      ['a malformed id', () => ({ id: '12abc', token: viewer.token }), 404],
      ['an id too long to be one', () => ({ id: '1'.repeat(30), token: viewer.token }), 404],
      ['a token without write:follows', () => ({ id: fan.account.id, token: readOnly }), 403],
      ['no token', () => ({ id: fan.account.id, token: undefined }), 401],
    ])('%s', async (_, input, status) => {
      expect((await follow(viewer.account.id, fan.token)).status).toBe(200);
      const { id, token } = input();
      expectError(await removeFollower(id, token), status);
      expect(await followEdge(fan.account.id, viewer.account.id)).toBeDefined();
      expect((await counts(viewer.account)).followers).toBe(1);
      // The good twin.
      expect((await removeFollower(fan.account.id, viewer.token)).body).toMatchObject({ followed_by: false });
      expect((await counts(viewer.account)).followers).toBe(0);
    });
  });
});
