// The operator's domain blocks on the real table: a suspended server is refused at the inbox before any key
// fetch, its queued activities are dropped, nothing is delivered to it or fetched from it, and what was stored
// from it goes; a silenced server's statuses stay out of the public timelines and its accounts' notifications
// reach only their followers. Each refusal is paired with the same request from a server that is not blocked.
// Also: users' own domain blocks on remote content (reads, fan-out, follow), GET /api/v1/instance/peers and
// /domain_blocks, and authorized fetch on the ActivityPub documents.
import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { handler as actorHandler } from '../../functions/activitypub/actor';
import { handler as followersHandler } from '../../functions/activitypub/followers';
import { handler as inboxHandler } from '../../functions/activitypub/inbox';
import { handler as instanceActorHandler } from '../../functions/activitypub/instance_actor';
import { handler as followHandler } from '../../functions/accounts/follow';
import { handler as domainBlocksHandler } from '../../functions/instance/domain_blocks';
import { handler as peersHandler } from '../../functions/instance/peers';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as notificationsHandler } from '../../functions/notifications/index';
import { blockDomainCommand, purgeDomain, unblockDomainCommand } from '../../lib/admin/federation_commands';
import { accountById, type Account } from '../../lib/db/accounts';
import { createDomainBlock } from '../../lib/db/domain_blocks';
import { createFollow, followEdge } from '../../lib/db/follows';
import { updateInstanceSettings } from '../../lib/db/instance';
import { allPeers, domainAccountIdsPage } from '../../lib/db/instance_domain_blocks';
import * as keys from '../../lib/db/keys';
import { remoteAccountByUri } from '../../lib/db/remote';
import { statusById } from '../../lib/db/statuses';
import { getItem } from '../../lib/db/table';
import { deliverOne, deliverTo } from '../../lib/federation/deliver';
import { FetchRefused, fetchObject } from '../../lib/federation/fetch';
import { receiveInboxRequest } from '../../lib/federation/inbox_request';
import { signRequest, type Signer } from '../../lib/federation/signatures';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { processActivity } from '../../lib/inbox';
import { forgetInstanceDomainBlocks } from '../../lib/policy/instance_domains';
import { registerInlineWorker } from '../../lib/queue';
import type { DeliverMessage, InboxMessage } from '../../lib/queue/messages';
import { z } from 'zod';
import { collectDeliveries } from '../support/activities';
import { aFollow, aRemoteAccount, aUser, type RemoteAccountFixture, type UserFixture } from '../support/factories';
import { call, type Call } from '../support/http';
import { storedItemCount } from '../support/items';
import { remoteServer, type RemoteServer } from '../support/remote-server';
import { connectThroughHandler, useManagementApi, type ManagementRequest } from '../support/management-api';

// ---- queues: fan-out and notify run for real, deliveries and inbox messages are recorded ----

const delivered = collectDeliveries();
const queuedInbox: InboxMessage[] = [];
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', (event: SQSEvent) => notifyWorker(event));
registerInlineWorker('inbox', async (event: SQSEvent) => {
  for (const r of event.Records) queuedInbox.push(JSON.parse(r.body) as InboxMessage);
  return { batchItemFailures: [] };
});

// ---- streams: a stand-in for the Management API records every frame ----

type Frame = { event: string; payload?: string };
const frames: { connectionId: string; frame: Frame }[] = [];
useManagementApi((req: ManagementRequest, res: ServerResponse) => {
  if (req.method === 'POST' && req.connectionId) frames.push({ connectionId: req.connectionId, frame: JSON.parse(req.body.toString('utf8')) as Frame });
  res.writeHead(200).end();
});

beforeEach(() => {
  delivered.length = 0;
  queuedInbox.length = 0;
  forgetInstanceDomainBlocks();
});

/** A fresh domain per test: blocks are instance-wide. */
const aDomain = (what: string) => `${what}-${randomUUID().slice(0, 8)}.example`;

const note = (author: Account, opts: { id?: string; content?: string; to?: string[]; cc?: string[]; tag?: unknown[] } = {}) => ({
  id: opts.id ?? `${author.uri}/statuses/${newId()}`,
  type: 'Note',
  attributedTo: author.uri,
  content: opts.content ?? '<p>hello</p>',
  published: new Date().toISOString(),
  to: opts.to ?? [AS_PUBLIC],
  cc: opts.cc ?? [author.followersUrl],
  ...(opts.tag ? { tag: opts.tag } : {}),
});

const createOf = (author: Account, object: Record<string, unknown>) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${author.uri}#creates/${randomUUID()}`,
  type: 'Create',
  actor: author.uri,
  object,
});

const received = (author: Account, activity: Record<string, unknown>): InboxMessage => ({ activity, signer: author.uri!, receivedAt: new Date().toISOString() });

const storedStatusOf = async (uri: string) => {
  const pointer = await getItem(keys.statusUri(uri), z.object({ statusId: z.string() }));
  return pointer ? statusById(pointer.statusId) : undefined;
};

const publicIds = async (query: Record<string, string> = {}, token?: string) => {
  const res = await call(publicTimeline, { query, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
  expect(res.status).toBe(200);
  return (res.body as { id: string }[]).map((s) => s.id);
};

// ---- suspend ----

describe('a suspended server', () => {
  let alice: UserFixture;
  beforeAll(async () => {
    alice = await aUser();
  });

  /** A POST of `activity` to the shared inbox, signed by `remote`. */
  const signedInboxPost = (remote: RemoteAccountFixture, activity: Record<string, unknown>): Call => {
    const body = JSON.stringify(activity);
    const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, remote.signer);
    return { method: 'POST', path: '/inbox', headers, body: { data: body, contentType: 'application/activity+json' } };
  };

  it('is refused at the inbox with 403 {"error"} before its key is looked up; a server not blocked is queued', async () => {
    const domain = aDomain('suspended');
    const [bad, good] = await Promise.all([aRemoteAccount({ domain }), aRemoteAccount({ domain: aDomain('fine') })]);
    await blockDomainCommand(domain, { severity: 'suspend' });

    const refused = await call(inboxHandler, signedInboxPost(bad, createOf(bad.account, note(bad.account))));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(queuedInbox).toHaveLength(0);

    const accepted = await call(inboxHandler, signedInboxPost(good, createOf(good.account, note(good.account))));
    expect(accepted.status).toBe(202);
    expect(queuedInbox).toHaveLength(1);
  });

  it('is refused without a key fetch: the key lookup is never called for it, and is for a server not blocked', async () => {
    const domain = aDomain('suspended');
    await blockDomainCommand(domain, { severity: 'suspend' });
    const lookups: string[] = [];
    const lookup = async (keyId: string) => {
      lookups.push(keyId);
      return undefined;
    };
    const requestFrom = (host: string) => {
      const body = Buffer.from(JSON.stringify({ id: `https://${host}/a/1`, type: 'Follow', actor: `https://${host}/users/x`, object: 'x' }));
      const signer: Signer = { keyId: `https://${host}/users/x#main-key`, privateKeyPem: (aSigner as Signer).privateKeyPem };
      const headers = signRequest({ method: 'POST', url: 'https://social.example/inbox', headers: { 'content-type': 'application/activity+json' }, body }, signer);
      return { method: 'POST', path: '/inbox', headers, body };
    };
    const aSigner = (await aRemoteAccount({ domain: aDomain('keys') })).signer;
    await expect(receiveInboxRequest(requestFrom(`sub.${domain}`), undefined, { lookup })).rejects.toMatchObject({ status: 403 });
    expect(lookups).toEqual([]);
    const fine = aDomain('fine');
    await expect(receiveInboxRequest(requestFrom(fine), undefined, { lookup })).rejects.toMatchObject({ status: 401 });
    expect(lookups).toEqual([`https://${fine}/users/x#main-key`]);
  });

  it("has its queued activities dropped by the inbox worker, writing nothing; a server not blocked has its applied", async () => {
    const domain = aDomain('suspended');
    const [bad, good] = await Promise.all([aRemoteAccount({ domain, keyless: true }), aRemoteAccount({ domain: aDomain('fine'), keyless: true })]);
    const badNote = note(bad.account);
    const message = received(bad.account, createOf(bad.account, badNote));
    await blockDomainCommand(domain, { severity: 'silence' });
    // Silenced only: a block that is not a suspension lets it through.
    await blockDomainCommand(domain, { severity: 'suspend' });
    const before = await storedItemCount();
    expect(await processActivity(message)).toBe('refused');
    expect(await storedItemCount()).toBe(before);
    expect(await storedStatusOf(badNote.id)).toBeUndefined();

    const goodNote = note(good.account);
    expect(await processActivity(received(good.account, createOf(good.account, goodNote)))).toBe('applied');
    expect(await storedStatusOf(goodNote.id)).toBeDefined();
  });

  it('receives nothing: deliveries are left out at enqueue and dropped at send, others go', async () => {
    const domain = aDomain('suspended');
    const other = aDomain('fine');
    await blockDomainCommand(domain, { severity: 'suspend' });
    const activity = { id: `${apUrls.actor(alice.account.username)}#x/${randomUUID()}`, type: 'Update', actor: apUrls.actor(alice.account.username) };
    await deliverTo(activity, [`https://${domain}/inbox`, `https://sub.${domain}/inbox`, `https://${other}/inbox`], { accountId: alice.account.id });
    expect(delivered.map((d) => d.inbox)).toEqual([`https://${other}/inbox`]);

    // One queued before the suspension: dropped when its turn comes, nothing sent.
    const outcome = await deliverOne({ inbox: `https://${domain}/inbox`, activity, signer: { accountId: alice.account.id }, attempt: 1 });
    expect(outcome).toBe('skipped');
  });

  describe('fetching', () => {
    let server: RemoteServer;
    beforeAll(async () => {
      process.env.STAGE = 'local';
      process.env.FEDERATION_ALLOW_PRIVATE = '1';
      server = await remoteServer();
      server.serve({ id: `${server.origin}/users/zed`, type: 'Person' });
    });
    afterAll(async () => {
      process.env.STAGE = 'test';
      delete process.env.FEDERATION_ALLOW_PRIVATE;
      await server.close();
    });

    it('fetches nothing from it: refused before any request, and fetched again once unblocked', async () => {
      await blockDomainCommand(server.host, { severity: 'suspend' });
      const error = await fetchObject(`${server.origin}/users/zed`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchRefused);
      expect(server.received).toHaveLength(0);

      await unblockDomainCommand(server.host);
      await expect(fetchObject(`${server.origin}/users/zed`)).resolves.toMatchObject({ id: `${server.origin}/users/zed` });
      expect(server.received).toHaveLength(1);
    });
  });

  it('has everything stored from it removed: accounts, statuses, follows both ways; another server keeps its own', async () => {
    const domain = aDomain('purged');
    const [r1, r2, keeper] = await Promise.all([
      aRemoteAccount({ domain, keyless: true }),
      aRemoteAccount({ domain: `sub.${domain}`, keyless: true }),
      aRemoteAccount({ domain: aDomain('kept'), keyless: true }),
    ]);
    const bob = await aUser();
    const n1 = note(r1.account);
    const nKeeper = note(keeper.account);
    expect(await processActivity(received(r1.account, createOf(r1.account, n1)))).toBe('applied');
    expect(await processActivity(received(keeper.account, createOf(keeper.account, nKeeper)))).toBe('applied');
    // Real follow transactions, counters included: the purge must move them by exactly as much.
    const edge = (follower: Account, followed: Account) => ({ id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() });
    expect(await createFollow(edge(bob.account, r1.account))).toBe(true);
    expect(await createFollow(edge(r2.account, bob.account), { followerInbox: r2.account.sharedInboxUrl! })).toBe(true);
    expect(await createFollow(edge(bob.account, keeper.account))).toBe(true);
    expect(await allPeers()).toEqual(expect.arrayContaining([domain, `sub.${domain}`]));

    const output = await blockDomainCommand(domain, { severity: 'suspend', publicComment: 'spam' });
    expect(output).toContain('Removed 2 accounts');

    expect(await remoteAccountByUri(r1.account.uri!)).toBeUndefined();
    expect(await remoteAccountByUri(r2.account.uri!)).toBeUndefined();
    expect(await accountById(r1.account.id)).toBeUndefined();
    expect(await storedStatusOf(n1.id)).toBeUndefined();
    expect(await followEdge(bob.account.id, r1.account.id)).toBeUndefined();
    expect(await followEdge(r2.account.id, bob.account.id)).toBeUndefined();
    expect((await domainAccountIdsPage(domain, 10)).ids).toEqual([]);
    const bobNow = await accountById(bob.account.id);
    expect(bobNow).toMatchObject({ followingCount: 1, followersCount: 0 });

    expect(await remoteAccountByUri(keeper.account.uri!)).toBeDefined();
    expect(await storedStatusOf(nKeeper.id)).toBeDefined();
    expect(await followEdge(bob.account.id, keeper.account.id)).toBeDefined();
  });

  it('is purged in bounded runs that resume where they stopped', async () => {
    const domain = aDomain('long');
    const accounts = await Promise.all([1, 2, 3].map(() => aRemoteAccount({ domain, keyless: true })));
    const first = await purgeDomain(domain, 2);
    expect(first).toEqual({ accounts: 2, done: false });
    const second = await purgeDomain(domain, 2);
    expect(second).toEqual({ accounts: 1, done: true });
    for (const a of accounts) expect(await accountById(a.account.id)).toBeUndefined();
  });
});

// ---- silence ----

describe('a silenced server', () => {
  let alice: UserFixture;
  let follower: UserFixture;
  beforeAll(async () => {
    [alice, follower] = await Promise.all([aUser(), aUser()]);
  });

  it("keeps new statuses out of the public timelines and hides stored ones on read; a server not blocked shows", async () => {
    const domain = aDomain('silenced');
    const [loud, fine] = await Promise.all([aRemoteAccount({ domain, keyless: true }), aRemoteAccount({ domain: aDomain('fine'), keyless: true })]);
    // Stored before the silence: listed, then hidden on read.
    const before = note(loud.account);
    expect(await processActivity(received(loud.account, createOf(loud.account, before)))).toBe('applied');
    const beforeStatus = (await storedStatusOf(before.id))!;
    expect(await publicIds()).toContain(beforeStatus.id);

    await blockDomainCommand(domain, { severity: 'silence' });
    const after = note(loud.account);
    const fineNote = note(fine.account);
    expect(await processActivity(received(loud.account, createOf(loud.account, after)))).toBe('applied');
    expect(await processActivity(received(fine.account, createOf(fine.account, fineNote)))).toBe('applied');
    const afterStatus = (await storedStatusOf(after.id))!;
    const fineStatus = (await storedStatusOf(fineNote.id))!;

    // New one not listed at all (no public entry), old one filtered out; signed in or not, local or remote scope.
    expect(await getItem(keys.publicEntry('all', afterStatus.id), z.object({}).passthrough())).toBeUndefined();
    expect(await getItem(keys.publicEntry('all', fineStatus.id), z.object({}).passthrough())).toBeDefined();
    for (const ids of [await publicIds(), await publicIds({ remote: 'true' }), await publicIds({}, alice.token)]) {
      expect(ids).toContain(fineStatus.id);
      expect(ids).not.toContain(afterStatus.id);
      expect(ids).not.toContain(beforeStatus.id);
    }
    // The statuses themselves stay (silence removes nothing).
    expect(await statusById(afterStatus.id)).toBeDefined();

    await unblockDomainCommand(domain);
    expect(await publicIds()).toContain(beforeStatus.id);
  });

  it('keeps its statuses out of the public streams; a server not blocked is heard there', async () => {
    const domain = aDomain('silenced');
    const [loud, fine] = await Promise.all([aRemoteAccount({ domain, keyless: true }), aRemoteAccount({ domain: aDomain('fine'), keyless: true })]);
    await blockDomainCommand(domain, { severity: 'silence' });
    const publicStream = await connectThroughHandler(undefined, { stream: 'public' });
    const loudNote = note(loud.account);
    const fineNote = note(fine.account);
    expect(await processActivity(received(loud.account, createOf(loud.account, loudNote)))).toBe('applied');
    expect(await processActivity(received(fine.account, createOf(fine.account, fineNote)))).toBe('applied');
    const heard = frames
      .filter((f) => f.connectionId === publicStream && f.frame.event === 'update')
      .map((f) => (JSON.parse(f.frame.payload!) as { uri: string }).uri);
    expect(heard).toContain(fineNote.id);
    expect(heard).not.toContain(loudNote.id);
  });

  it("lets its accounts' mentions notify only their followers", async () => {
    const domain = aDomain('silenced');
    const [loud, fine] = await Promise.all([aRemoteAccount({ domain, keyless: true }), aRemoteAccount({ domain: aDomain('fine'), keyless: true })]);
    await aFollow(follower.account, loud.account);
    await blockDomainCommand(domain, { severity: 'silence' });
    const mention = (who: UserFixture) => ({ type: 'Mention', href: apUrls.actor(who.account.username), name: `@${who.account.username}` });
    const mentioning = (author: Account) =>
      note(author, { content: `<p>@${alice.account.username} @${follower.account.username}</p>`, tag: [mention(alice), mention(follower)] });
    expect(await processActivity(received(loud.account, createOf(loud.account, mentioning(loud.account))))).toBe('applied');
    expect(await processActivity(received(fine.account, createOf(fine.account, mentioning(fine.account))))).toBe('applied');

    const fromOf = async (who: UserFixture) => {
      const res = await call(notificationsHandler, { headers: { authorization: `Bearer ${who.token}` } });
      return (res.body as { type: string; account: { id: string } }[]).filter((n) => n.type === 'mention').map((n) => n.account.id);
    };
    // alice does not follow the silenced account: only the other server's mention reaches her.
    expect(await fromOf(alice)).toEqual([fine.account.id]);
    // Her follower hears both.
    expect((await fromOf(follower)).sort()).toEqual([fine.account.id, loud.account.id].sort());
  });
});

// ---- users' own domain blocks on remote content ----

describe("a user's domain block on remote content", () => {
  it('keeps remote statuses of the domain out of the home fan-out and the public timeline read', async () => {
    const domain = aDomain('userblocked');
    const remote = await aRemoteAccount({ domain, keyless: true });
    const [blocker, other] = await Promise.all([aUser(), aUser()]);
    await aFollow(blocker.account, remote.account);
    await aFollow(other.account, remote.account);
    await createDomainBlock({ id: newId(), accountId: blocker.account.id, domain, createdAt: new Date().toISOString() });

    const n = note(remote.account);
    expect(await processActivity(received(remote.account, createOf(remote.account, n)))).toBe('applied');
    const status = (await storedStatusOf(n.id))!;
    expect(await getItem(keys.homeEntry(blocker.account.id, status.id), z.object({}).passthrough())).toBeUndefined();
    expect(await getItem(keys.homeEntry(other.account.id, status.id), z.object({}).passthrough())).toBeDefined();

    expect(await publicIds({}, blocker.token)).not.toContain(status.id);
    expect(await publicIds({}, other.token)).toContain(status.id);
  });

  it('refuses to follow an account on a blocked domain with 403 {"error"}; one elsewhere is requested', async () => {
    const domain = aDomain('userblocked');
    const [blockedOne, elsewhere] = await Promise.all([aRemoteAccount({ domain, keyless: true }), aRemoteAccount({ domain: aDomain('fine'), keyless: true })]);
    const user = await aUser();
    await createDomainBlock({ id: newId(), accountId: user.account.id, domain, createdAt: new Date().toISOString() });
    const followOf = (target: Account) =>
      call(followHandler, { method: 'POST', path: `/api/v1/accounts/${target.id}/follow`, pathParameters: { id: target.id }, headers: { authorization: `Bearer ${user.token}` } });

    const refused = await followOf(blockedOne.account);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(delivered).toHaveLength(0);

    const ok = await followOf(elsewhere.account);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ requested: true });
  });
});

// ---- the public endpoints ----

describe('GET /api/v1/instance/peers and /api/v1/instance/domain_blocks', () => {
  it('lists the known domains, suspended ones left out', async () => {
    const [known, gone] = [aDomain('peer'), aDomain('gonepeer')];
    await Promise.all([aRemoteAccount({ domain: known, keyless: true }), aRemoteAccount({ domain: gone, keyless: true })]);
    const before = await call(peersHandler, {});
    expect(before.status).toBe(200);
    expect(before.body).toEqual(expect.arrayContaining([known, gone]));
    await blockDomainCommand(gone, { severity: 'suspend' });
    const after = await call(peersHandler, {});
    expect(after.body).toContain(known);
    expect(after.body).not.toContain(gone);
  });

  it('answers 404 until the operator makes the blocks public, then DomainBlock entities with the digest', async () => {
    const domain = aDomain('listed');
    await blockDomainCommand(domain, { severity: 'silence', publicComment: 'rude', privateComment: 'secret' });
    await updateInstanceSettings({ domainBlocksPublic: false });
    const hidden = await call(domainBlocksHandler, {});
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: expect.any(String) });

    await updateInstanceSettings({ domainBlocksPublic: true });
    const shown = await call(domainBlocksHandler, {});
    expect(shown.status).toBe(200);
    expect(shown.body).toContainEqual({ domain, digest: createHash('sha256').update(domain).digest('hex'), severity: 'silence', comment: 'rude' });
    expect(JSON.stringify(shown.body)).not.toContain('secret');
    await updateInstanceSettings({ domainBlocksPublic: false });
  });
});

// ---- authorized fetch ----

describe('authorized fetch', () => {
  let alice: UserFixture;
  let peer: RemoteAccountFixture;
  let banned: RemoteAccountFixture;
  beforeAll(async () => {
    alice = await aUser();
    [peer, banned] = await Promise.all([aRemoteAccount({ domain: aDomain('peer') }), aRemoteAccount({ domain: aDomain('banned') })]);
  });
  afterAll(() => updateInstanceSettings({ authorizedFetch: false }));

  const get = (handler: typeof actorHandler, path: string, pathParameters: Record<string, string>, signer?: Signer, query?: string) => {
    const url = `https://social.example${path}${query ? `?${query}` : ''}`;
    const headers = { accept: 'application/activity+json', ...(signer ? signRequest({ method: 'GET', url, headers: { accept: 'application/activity+json' } }, signer) : {}) };
    return call(handler, { path, pathParameters, headers, ...(query ? { query } : {}) });
  };

  it('serves documents to anyone while off', async () => {
    await updateInstanceSettings({ authorizedFetch: false });
    const res = await get(actorHandler, `/users/${alice.account.username}`, { username: alice.account.username });
    expect(res.status).toBe(200);
  });

  it('answers 401 {"error"} to an unsigned GET of an actor or a collection when on, 200 to a signed one', async () => {
    await updateInstanceSettings({ authorizedFetch: true });
    const username = alice.account.username;
    const unsigned = await get(actorHandler, `/users/${username}`, { username });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toEqual({ error: expect.any(String) });
    const unsignedFollowers = await get(followersHandler, `/users/${username}/followers`, { username });
    expect(unsignedFollowers.status).toBe(401);

    expect((await get(actorHandler, `/users/${username}`, { username }, peer.signer)).status).toBe(200);
    expect((await get(followersHandler, `/users/${username}/followers`, { username }, peer.signer)).status).toBe(200);
  });

  it('refuses a signature that does not verify, and a suspended server with 403', async () => {
    await updateInstanceSettings({ authorizedFetch: true });
    const username = alice.account.username;
    const forged: Signer = { keyId: peer.signer.keyId, privateKeyPem: banned.signer.privateKeyPem };
    expect((await get(actorHandler, `/users/${username}`, { username }, forged)).status).toBe(401);
    await blockDomainCommand(banned.account.domain!, { severity: 'suspend' });
    // The purge removed its account; its request is refused on its domain before any key lookup.
    const res = await get(actorHandler, `/users/${username}`, { username }, banned.signer);
    expect(res.status).toBe(403);
  });

  it('keeps the instance actor and the web page public', async () => {
    await updateInstanceSettings({ authorizedFetch: true });
    expect((await call(instanceActorHandler, { path: '/actor', headers: { accept: 'application/activity+json' } })).status).toBe(200);
    const page = await call(actorHandler, { path: `/users/${alice.account.username}`, pathParameters: { username: alice.account.username }, headers: { accept: 'text/html' } });
    expect(page.status).toBe(302);
  });
});

// Suspending the own domain is refused (test/integration/admin-federation.test.ts has the CLI's other errors).
it('refuses to block this instance', async () => {
  await expect(blockDomainCommand('social.example', { severity: 'suspend' })).rejects.toThrow(/own domain/);
});
