// GET / POST / DELETE /api/v1/domain_blocks, and what a domain block does: the
// domain's followers and follow requests go (exact counters), its statuses and
// notifications are hidden from the blocking user only, `domain_blocking` in
// the Relationship. Remote accounts are local fixtures with `domain` set.
import { z } from 'zod';
import { handler as blockAccountHandler } from '../../functions/accounts/block';
import { handler as blocksHandler } from '../../functions/blocks/index';
import { handler as createHandler } from '../../functions/domain_blocks/create';
import { handler as deleteHandler } from '../../functions/domain_blocks/delete';
import { handler as indexHandler } from '../../functions/domain_blocks/index';
import { handler as accountStatusesHandler } from '../../functions/accounts/statuses';
import { handler as relationshipsHandler } from '../../functions/accounts/relationships';
import { handler as listTimelineHandler } from '../../functions/lists/timeline';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { handler as searchHandler } from '../../functions/search/v2';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as homeHandler } from '../../functions/timelines/home';
import { handler as publicHandler } from '../../functions/timelines/public';
import { handler as tagHandler } from '../../functions/timelines/tag';
import { dbCalls } from '../../lib/aws';
import { accountById, type Account } from '../../lib/db/accounts';
import { domainBlockRecord } from '../../lib/db/domain_blocks';
import { createFollowRequest, followEdge, graphStates } from '../../lib/db/follows';
import * as keys from '../../lib/db/keys';
import { writeSearchIndex } from '../../lib/db/search';
import { hiddenFor, searchableByAnyone, withoutHidden } from '../../lib/policy';
import { putReply, type Status } from '../../lib/db/statuses';
import { batchWrite, query, transact } from '../../lib/db/table';
import { addAccounts, createList } from '../../lib/lists';
import { newId } from '../../lib/ids';
import { notify } from '../../lib/notifications/notify';
import { fanOut } from '../../lib/timelines/fanout';
import { aBareAccount, aFollow, anAppToken, aPostedReblog, aPostedStatus, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

const anyItem = z.record(z.unknown());
const partition = async (pk: string) => (await query({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': pk } }, anyItem)).items;
const ids = (body: unknown) => z.array(z.object({ id: z.string() })).parse(body).map((x) => x.id);

let seq = 0;
/** A domain no other test uses, so tests never see each other's blocks. */
const aDomain = () => `remote${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}.example`;

type Params = { form?: Record<string, string | string[]>; json?: unknown; query?: Record<string, string | string[]> };
const blockCall = (token: string | undefined, params: Params) => call(createHandler, { method: 'POST', path: '/api/v1/domain_blocks', token, ...params });
const unblockCall = (token: string | undefined, params: Params) => call(deleteHandler, { method: 'DELETE', path: '/api/v1/domain_blocks', token, ...params });
const listCall = (token: string | undefined, query: Record<string, string> = {}) => call(indexHandler, { path: '/api/v1/domain_blocks', query, token });
const block = (u: UserFixture, domain: string) => blockCall(u.token, { form: { domain } });
const domains = async (u: UserFixture, query: Record<string, string> = {}) => z.array(z.string()).parse((await listCall(u.token, query)).body);

const relationships = async (u: UserFixture, of: Account[]) =>
  z
    .array(z.object({ id: z.string(), domain_blocking: z.boolean(), following: z.boolean(), followed_by: z.boolean() }))
    .parse((await call(relationshipsHandler, { path: '/api/v1/accounts/relationships', query: { id: of.map((a) => a.id) }, token: u.token })).body);
const domainBlocking = async (u: UserFixture, of: Account) => (await relationships(u, [of]))[0]?.domain_blocking;

async function counters(a: Account) {
  const fresh = await accountById(a.id);
  return { followers: fresh?.followersCount, following: fresh?.followingCount, requests: fresh?.followRequestsCount };
}

/** A follow as the follow endpoint writes it: the edge and both counters. */
async function aCountedFollow(follower: Account, followed: Account) {
  await aFollow(follower, followed);
  await transact([
    { Update: { Key: keys.account(follower.id), UpdateExpression: 'ADD followingCount :one', ExpressionAttributeValues: { ':one': 1 } } },
    { Update: { Key: keys.account(followed.id), UpdateExpression: 'ADD followersCount :one', ExpressionAttributeValues: { ':one': 1 } } },
  ]);
}

const aRequest = (from: Account, to: Account) =>
  createFollowRequest({ id: newId(), accountId: from.id, targetAccountId: to.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });

/** A reply stored as posting stores it (status, home/public entries, reply index). */
async function aReply(author: Account, parent: Status) {
  const reply = await aPostedStatus(author, { inReplyToId: parent.id, inReplyToAccountId: parent.accountId, conversationId: parent.conversationId });
  await transact([putReply({ ...reply, inReplyToId: parent.id })]);
  return reply;
}

/** The `max_id` of the Link header's `next` URL. */
const nextMaxId = (res: Answer) => /[?&]max_id=(\d+)[^>]*>; rel="next"/.exec(res.headers.link ?? '')?.[1];

let alice: UserFixture;
beforeEach(async () => {
  alice = await aUser();
});

describe('POST, GET and DELETE /api/v1/domain_blocks', () => {
  it('blocks a domain, lists it, and unblocks it; blocking or unblocking twice is harmless', async () => {
    const domain = aDomain();
    const res = await block(alice, domain);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await domains(alice)).toEqual([domain]);
    const again = await blockCall(alice.token, { json: { domain } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    expect(await partition(keys.blockingPartition(alice.account.id))).toHaveLength(1);
    const removed = await unblockCall(alice.token, { query: { domain } });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect(await domains(alice)).toEqual([]);
    expect((await unblockCall(alice.token, { form: { domain } })).body).toEqual({});
    expect(await partition(keys.blockingPartition(alice.account.id))).toEqual([]);
  });

  it('keeps each user’s blocks to themselves', async () => {
    const bob = await aUser();
    await block(alice, aDomain());
    expect(await domains(bob)).toEqual([]);
  });

  it.each([
    ['surrounding spaces and capitals', '  Spam.EXAMPLE.com ', 'spam.example.com'],
    ['an internationalised domain, to punycode', 'Ünicode.example', 'xn--nicode-2ya.example'],
    ['one trailing slash', 'example.org/', 'example.org'],
    ['full-width characters, as the host parser maps them', 'ｅｘａｍｐｌｅ．ｎｅｔ', 'example.net'],
    ['an IPv4 address', '192.0.2.10', '192.0.2.10'],
    ['255 characters, the longest Mastodon takes', `${'A.'.repeat(124)}example`, `${'a.'.repeat(124)}example`],
  ])('normalises %s as Mastodon does', async (_name, given, stored) => {
    expect((await blockCall(alice.token, { form: { domain: given } })).status).toBe(200);
    expect(await domains(alice)).toEqual([stored]);
  });

  it('unblocks whatever the spelling, and a block spelled differently is the same block', async () => {
    await block(alice, 'Mixed.Example');
    await block(alice, 'mixed.example');
    expect(await domains(alice)).toEqual(['mixed.example']);
    await unblockCall(alice.token, { json: { domain: ' MIXED.example ' } });
    expect(await domains(alice)).toEqual([]);
  });

  it('pages newest block first (default 100, at most 200) with Link headers', async () => {
    const now = new Date().toISOString();
    const stored = Array.from({ length: 201 }, (_v, i) => ({ id: newId(), accountId: alice.account.id, domain: `d${i}.example`, createdAt: now }));
    await batchWrite(stored.map(domainBlockRecord));
    const newestFirst = [...stored].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1)).map((b) => b.domain);

    const first = await listCall(alice.token);
    expect(first.body).toEqual(newestFirst.slice(0, 100));
    expect(first.headers.link).toContain('/api/v1/domain_blocks?');
    expect(first.headers.link).toContain('rel="prev"');
    const most = await listCall(alice.token, { limit: '500' });
    expect(most.body).toEqual(newestFirst.slice(0, 200));
    const next = nextMaxId(most);
    expect(next).toBeDefined();
    const last = await listCall(alice.token, { limit: '500', max_id: next! });
    expect(last.body).toEqual(newestFirst.slice(200));
    expect(last.headers.link).toContain('limit=500');

    const small = await listCall(alice.token, { limit: '2' });
    expect(small.body).toEqual(newestFirst.slice(0, 2));
    const second = await listCall(alice.token, { limit: '2', max_id: nextMaxId(small)! });
    expect(second.body).toEqual(newestFirst.slice(2, 4));
    const prev = /[?&]min_id=(\d+)[^>]*>; rel="prev"/.exec(second.headers.link ?? '')?.[1];
    expect((await listCall(alice.token, { limit: '2', min_id: prev! })).body).toEqual(newestFirst.slice(0, 2));
  });

  it('shares the blocking partition without showing up in GET /api/v1/blocks, whatever the range', async () => {
    const bob = await aUser();
    await block(alice, aDomain());
    expect((await call(blockAccountHandler, { method: 'POST', path: `/api/v1/accounts/${bob.account.id}/block`, pathParameters: { id: bob.account.id }, token: alice.token })).status).toBe(200);
    await block(alice, aDomain());
    const ranges: Record<string, string>[] = [{}, { since_id: '0' }, { min_id: '0' }, { limit: '1' }, { max_id: '99999999999999999999' }];
    for (const query of ranges) {
      const res = await call(blocksHandler, { path: '/api/v1/blocks', query, token: alice.token });
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([bob.account.id]);
    }
    expect(await domains(alice)).toHaveLength(2);
  });

  it('answers an empty list without a Link header', async () => {
    const res = await listCall(alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.link).toBeUndefined();
  });
});

describe('bad input', () => {
  const blank = "Validation failed: domain can't be blank";
  const invalid = 'Validation failed: domain is invalid';
  // Every row has four cells: jest hands a test with fewer arguments a `done` callback in the last one.
  const cases: [string, () => Promise<Answer>, number, string | null][] = [
    ['POST without a token', () => blockCall(undefined, { form: { domain: 'a.example' } }), 401, null],
    ['POST with an app token', async () => blockCall((await anAppToken(['write'])).token, { form: { domain: 'a.example' } }), 422, null],
    ['POST without a domain', () => blockCall(alice.token, { form: {} }), 422, blank],
    ['POST with an empty domain', () => blockCall(alice.token, { form: { domain: '' } }), 422, blank],
    ['POST with a blank domain', () => blockCall(alice.token, { json: { domain: '   ' } }), 422, blank],
    ['POST with null', () => blockCall(alice.token, { json: { domain: null } }), 422, null],
    ['POST with a number', () => blockCall(alice.token, { json: { domain: 42 } }), 422, null],
    ['POST with a list', () => blockCall(alice.token, { form: { domain: ['a.example', 'b.example'] } }), 422, null],
    ['POST with a URL', () => blockCall(alice.token, { form: { domain: 'https://spam.example' } }), 422, invalid],
    ['POST with a path', () => blockCall(alice.token, { form: { domain: 'spam.example/users/x' } }), 422, invalid],
    ['POST with a leading @', () => blockCall(alice.token, { form: { domain: '@spam.example' } }), 422, invalid],
    ['POST with user@domain', () => blockCall(alice.token, { form: { domain: 'someone@spam.example' } }), 422, invalid],
    ['POST with a wildcard', () => blockCall(alice.token, { form: { domain: '*.spam.example' } }), 422, invalid],
    ['POST with a port', () => blockCall(alice.token, { form: { domain: 'spam.example:443' } }), 422, invalid],
    ['POST with a space inside', () => blockCall(alice.token, { form: { domain: 'spam example' } }), 422, invalid],
    ['POST with an empty label', () => blockCall(alice.token, { form: { domain: 'spam..example' } }), 422, invalid],
    ['POST with a trailing dot', () => blockCall(alice.token, { form: { domain: 'spam.example.' } }), 422, invalid],
    ['POST with an underscore', () => blockCall(alice.token, { form: { domain: 'sp_am.example' } }), 422, invalid],
    ['POST with a label of 64 characters', () => blockCall(alice.token, { form: { domain: `${'a'.repeat(64)}.example` } }), 422, invalid],
    ['POST with 256 characters', () => blockCall(alice.token, { form: { domain: `${'a.'.repeat(125)}exampl` } }), 422, invalid],
    ['POST with a huge value', () => blockCall(alice.token, { form: { domain: 'a'.repeat(5000) } }), 422, invalid],
    ['POST with malformed JSON', () => call(createHandler, { method: 'POST', path: '/api/v1/domain_blocks', token: alice.token, body: { data: '{"domain":', contentType: 'application/json' } }), 400, null],
    ['DELETE without a token', () => unblockCall(undefined, { form: { domain: 'a.example' } }), 401, null],
    ['DELETE without a domain', () => unblockCall(alice.token, {}), 422, blank],
    ['DELETE with an invalid domain', () => unblockCall(alice.token, { query: { domain: 'https://a.example/' } }), 422, invalid],
    ['GET without a token', () => listCall(undefined), 401, null],
    ['GET with a malformed max_id', () => listCall(alice.token, { max_id: 'x' }), 422, null],
    ['GET with a negative limit', () => listCall(alice.token, { limit: '-1' }), 422, null],
  ];
  it.each(cases)('%s → its status, {"error"}, nothing written', async (_name, run, status, message) => {
    const res = await run();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: message ?? expect.any(String) });
    expect(await partition(keys.blockingPartition(alice.account.id))).toEqual([]);
  });

  it.each([
    ['POST with read only', 'POST', ['read']],
    ['POST with write:mutes', 'POST', ['write:mutes']],
    ['POST with read:blocks', 'POST', ['read:blocks']],
    ['DELETE with write:follows', 'DELETE', ['write:follows']],
    ['GET with read:mutes', 'GET', ['read:mutes']],
    ['GET with write:blocks', 'GET', ['write:blocks']],
  ] as const)('%s → 403 and nothing written', async (_name, method, scopes) => {
    const weak = await aUser({ scopes: [...scopes] });
    const params = { form: { domain: 'scoped.example' } };
    const res = method === 'POST' ? await blockCall(weak.token, params) : method === 'DELETE' ? await unblockCall(weak.token, params) : await listCall(weak.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await partition(keys.blockingPartition(weak.account.id))).toEqual([]);
  });

  it.each([[['follow']], [['write:blocks', 'read:blocks']], [['write', 'read']]])('blocking, listing and unblocking are allowed with %p', async (scopes) => {
    const user = await aUser({ scopes });
    expect((await blockCall(user.token, { form: { domain: 'allowed.example' } })).status).toBe(200);
    expect((await listCall(user.token)).body).toEqual(['allowed.example']);
    expect((await unblockCall(user.token, { form: { domain: 'allowed.example' } })).status).toBe(200);
  });
});

describe('what blocking a domain does', () => {
  it('the domain’s followers stop following and its follow requests are rejected, with exact counters; nothing else moves', async () => {
    const domain = aDomain();
    const [remote1, remote2, requester] = await Promise.all([aBareAccount({ domain }), aBareAccount({ domain }), aBareAccount({ domain })]);
    const elsewhere = await aBareAccount({ domain: aDomain() });
    const local = await aBareAccount();
    const localRequester = await aBareAccount();
    for (const follower of [remote1, remote2, elsewhere, local]) await aCountedFollow(follower, alice.account);
    await aCountedFollow(alice.account, remote1);
    expect(await aRequest(requester, alice.account)).toBe(true);
    expect(await aRequest(localRequester, alice.account)).toBe(true);
    expect(await counters(alice.account)).toEqual({ followers: 4, following: 1, requests: 2 });

    expect((await block(alice, domain.toUpperCase())).status).toBe(200);

    expect(await followEdge(remote1.id, alice.account.id)).toBeUndefined();
    expect(await followEdge(remote2.id, alice.account.id)).toBeUndefined();
    expect(await followEdge(elsewhere.id, alice.account.id)).toBeDefined();
    expect(await followEdge(local.id, alice.account.id)).toBeDefined();
    // The user's own follows of the domain stay (Mastodon 3.x).
    expect(await followEdge(alice.account.id, remote1.id)).toBeDefined();
    expect(await counters(alice.account)).toEqual({ followers: 2, following: 1, requests: 1 });
    expect(await counters(remote1)).toEqual({ followers: 1, following: 0, requests: 0 });
    expect(await counters(remote2)).toEqual({ followers: 0, following: 0, requests: 0 });
    expect(await partition(keys.followRequest(requester.id, alice.account.id).PK)).toEqual([]);
    expect(await partition(keys.followRequest(localRequester.id, alice.account.id).PK)).toHaveLength(1);

    // Blocking again finds nothing more to remove: the counters do not move twice.
    await block(alice, domain);
    expect(await counters(alice.account)).toEqual({ followers: 2, following: 1, requests: 1 });

    // Unblocking restores nothing.
    await unblockCall(alice.token, { form: { domain } });
    expect(await followEdge(remote1.id, alice.account.id)).toBeUndefined();
    expect(await counters(alice.account)).toEqual({ followers: 2, following: 1, requests: 1 });
  });

  it('removes every follower of the domain across several transactions', async () => {
    const domain = aDomain();
    const remotes = await Promise.all(Array.from({ length: 45 }, () => aBareAccount({ domain })));
    for (const r of remotes) await aCountedFollow(r, alice.account);
    await block(alice, domain);
    expect(await counters(alice.account)).toMatchObject({ followers: 0 });
    expect((await Promise.all(remotes.map((r) => counters(r)))).every((c) => c.following === 0)).toBe(true);
  });

  it('Relationship: domain_blocking is true for accounts on the domain, only for the blocking user, until unblocked', async () => {
    const bob = await aUser();
    const domain = aDomain();
    const remote = await aBareAccount({ domain });
    const elsewhere = await aBareAccount({ domain: aDomain() });
    const local = await aBareAccount();
    await aCountedFollow(alice.account, remote);
    expect(await domainBlocking(alice, remote)).toBe(false);
    await block(alice, domain);
    expect(await relationships(alice, [remote, elsewhere, local])).toEqual([
      { id: remote.id, domain_blocking: true, following: true, followed_by: false },
      { id: elsewhere.id, domain_blocking: false, following: false, followed_by: false },
      { id: local.id, domain_blocking: false, following: false, followed_by: false },
    ]);
    expect(await domainBlocking(bob, remote)).toBe(false);
    await unblockCall(alice.token, { form: { domain } });
    expect(await domainBlocking(alice, remote)).toBe(false);
  });

  describe('statuses of the domain', () => {
    let bob: UserFixture;
    let carol: UserFixture;
    let domain: string;
    let remote: Account;
    let word: string;
    let tag: string;
    let status: Status;
    let reblog: Status;

    const home = async (u: UserFixture) => ids((await call(homeHandler, { path: '/api/v1/timelines/home', token: u.token })).body);
    /** The public timeline from just above `status` down, one status: robust to other tests posting meanwhile. */
    const publicAt = async (token?: string) =>
      ids((await call(publicHandler, { path: '/api/v1/timelines/public', query: { max_id: (BigInt(status.id) + 1n).toString(), limit: '1' }, token })).body);
    const tagged = async (token?: string) => ids((await call(tagHandler, { path: `/api/v1/timelines/tag/${tag}`, pathParameters: { hashtag: tag }, token })).body);
    const found = async (u: UserFixture) =>
      ids((await call(searchHandler, { path: '/api/v2/search', query: { q: word, type: 'statuses' }, token: u.token })).body.statuses);
    const statusesOf = async (u: UserFixture) =>
      ids((await call(accountStatusesHandler, { path: `/api/v1/accounts/${remote.id}/statuses`, pathParameters: { id: remote.id }, token: u.token })).body);

    beforeEach(async () => {
      [bob, carol] = await Promise.all([aUser(), aUser()]);
      domain = aDomain();
      remote = await aBareAccount({ domain });
      word = `dbword${newId()}`;
      tag = `dbtag${newId()}`;
      for (const u of [alice, bob]) await aCountedFollow(u.account, remote);
      await aCountedFollow(alice.account, carol.account);
      status = await aPostedStatus(remote, { text: `a post with ${word}`, tags: [tag] });
      await writeSearchIndex(status, searchableByAnyone(status));
      await fanOut(status.id);
      reblog = await aPostedReblog(carol.account, status);
      await fanOut(reblog.id);
    });

    it('home: the domain’s statuses and reblogs of them leave the blocking user’s home on read, and come back on unblock', async () => {
      expect(await home(alice)).toEqual([reblog.id, status.id]);
      await block(alice, domain);
      expect(await home(alice)).toEqual([]);
      expect(await home(bob)).toEqual([status.id]);
      await unblockCall(alice.token, { form: { domain } });
      expect(await home(alice)).toEqual([reblog.id, status.id]);
    });

    it('public and hashtag timelines, search and account statuses hide them from the blocking user only', async () => {
      await block(alice, domain);
      expect(await publicAt(alice.token)).not.toContain(status.id);
      expect(await publicAt(bob.token)).toEqual([status.id]);
      expect(await publicAt()).toEqual([status.id]);
      expect(await tagged(alice.token)).toEqual([]);
      expect(await tagged(bob.token)).toEqual([status.id]);
      expect(await found(alice)).toEqual([]);
      expect(await found(bob)).toEqual([status.id]);
      expect(await statusesOf(alice)).toEqual([]);
      expect(await statusesOf(bob)).toEqual([status.id]);
    });

    it('list timelines hide them from the blocking user', async () => {
      const list = await createList(alice.account, { title: 'remote friends' });
      await addAccounts(alice.account, list.id, [remote.id]);
      const listed = async () =>
        ids((await call(listTimelineHandler, { path: `/api/v1/timelines/list/${list.id}`, pathParameters: { list_id: list.id }, token: alice.token })).body);
      expect(await listed()).toEqual([status.id]);
      await block(alice, domain);
      expect(await listed()).toEqual([]);
    });

    it('context hides replies by the domain (and replies to it) from the blocking user only', async () => {
      const root = await aPostedStatus(carol.account);
      const byRemote = await aReply(remote, root);
      const toRemote = await aReply(bob.account, byRemote);
      const byCarol = await aReply(carol.account, root);
      await block(alice, domain);
      const context = async (u: UserFixture) =>
        (await call(contextHandler, { path: `/api/v1/statuses/${root.id}/context`, pathParameters: { id: root.id }, token: u.token })).body;
      expect(ids((await context(alice)).descendants)).toEqual([byCarol.id]);
      expect(ids((await context(bob)).descendants)).toEqual([byRemote.id, toRemote.id, byCarol.id]);
    });
  });

  it('notifications: those from the domain are cleared, new ones are not created; other users and domains are untouched', async () => {
    const bob = await aUser();
    const domain = aDomain();
    const [remote1, remote2] = await Promise.all([aBareAccount({ domain }), aBareAccount({ domain })]);
    const elsewhere = await aBareAccount({ domain: aDomain() });
    const local = await aBareAccount();
    const target = await aPostedStatus(alice.account);
    const bobs = await aPostedStatus(bob.account);
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: remote1.id, statusId: target.id })).toBe('created');
    expect(await notify({ type: 'mention', accountId: alice.account.id, fromAccountId: remote2.id, statusId: target.id })).toBe('created');
    expect(await notify({ type: 'follow', accountId: alice.account.id, fromAccountId: remote2.id })).toBe('created');
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: elsewhere.id, statusId: target.id })).toBe('created');
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: local.id, statusId: target.id })).toBe('created');
    expect(await notify({ type: 'favourite', accountId: bob.account.id, fromAccountId: remote1.id, statusId: bobs.id })).toBe('created');
    const from = async (u: UserFixture) =>
      z
        .array(z.object({ account: z.object({ id: z.string() }) }))
        .parse((await call(notificationsHandler, { path: '/api/v1/notifications', token: u.token })).body)
        .map((n) => n.account.id);

    await block(alice, domain);
    expect(await from(alice)).toEqual([local.id, elsewhere.id]);
    // Their de-duplication items went with them: nothing is left under alice's partition from the domain.
    expect((await partition(keys.notificationsPartition(alice.account.id))).map((n) => n.fromAccountId)).toEqual([elsewhere.id, local.id]);
    expect(await notify({ type: 'reblog', accountId: alice.account.id, fromAccountId: remote1.id, statusId: target.id })).toBe('hidden');
    expect(await notify({ type: 'follow', accountId: alice.account.id, fromAccountId: remote1.id })).toBe('hidden');
    expect(await from(bob)).toEqual([remote1.id]);
    expect(await notify({ type: 'reblog', accountId: bob.account.id, fromAccountId: remote1.id, statusId: bobs.id })).toBe('created');

    await unblockCall(alice.token, { form: { domain } });
    expect(await notify({ type: 'favourite', accountId: alice.account.id, fromAccountId: remote1.id, statusId: target.id })).toBe('created');
  });
});

describe('cost', () => {
  it('hiding costs a viewer without domain blocks no read more; with one, one batch read of the page’s accounts', async () => {
    const domain = aDomain();
    const remote = await aBareAccount({ domain });
    const local = await aBareAccount();
    const page = [await aPostedStatus(remote), await aPostedStatus(local), await aPostedStatus(local)];

    dbCalls.reset();
    expect(await withoutHidden(page, await hiddenFor(alice.account.id))).toEqual(page);
    // The blocking (with its domain blocks), blocked-by and muting partitions: one Query each, as before domain blocks.
    expect(dbCalls.count).toBe(3);

    dbCalls.reset();
    await graphStates(alice.account.id, [local.id]);
    expect(dbCalls.count).toBe(1);

    await block(alice, domain);
    dbCalls.reset();
    expect(await withoutHidden(page, await hiddenFor(alice.account.id))).toEqual(page.slice(1));
    // With a domain blocked: one batch read of the page's accounts more.
    expect(dbCalls.count).toBe(4);

    dbCalls.reset();
    await graphStates(alice.account.id, [remote.id]);
    expect(dbCalls.count).toBe(2);
  });
});
