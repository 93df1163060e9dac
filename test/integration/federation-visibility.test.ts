// Visibility across servers and remote profiles (issue 13, part 2):
// - what we send: a followers-only status reaches only its author's followers' inboxes (and
//   the mentioned), a direct one only the mentioned; neither is in the outbox nor served to
//   an unsigned fetch;
// - what we receive: a followers-only status of a remote author is shown only to its local
//   followers (show, home, public timelines, the account's statuses, search, context);
// - remote profiles: avatar, header, fields and note render, sanitised; Update(Person) replaces them;
// - pinned posts of remote accounts, read from their `featured` collection
//   (lib/federation/featured.ts) from a fake peer on loopback.
import { randomUUID } from 'node:crypto';
import { handler as showAccount } from '../../functions/accounts/show';
import { handler as accountStatuses } from '../../functions/accounts/statuses';
import { handler as outbox } from '../../functions/activitypub/outbox';
import { handler as statusDoc } from '../../functions/activitypub/status';
import { handler as search } from '../../functions/search/v2';
import { handler as contextHandler } from '../../functions/statuses/context';
import { handler as createStatus } from '../../functions/statuses/create';
import { handler as pinHandler } from '../../functions/statuses/pin';
import { handler as unpinHandler } from '../../functions/statuses/unpin';
import { handler as showStatus } from '../../functions/statuses/show';
import { handler as homeTimeline } from '../../functions/timelines/home';
import { handler as publicTimeline } from '../../functions/timelines/public';
import { handler as fanoutWorker } from '../../functions/workers/fanout';
import { handler as notifyWorker } from '../../functions/workers/notify';
import { handler as remoteMediaWorker } from '../../functions/workers/remote_media';
import type { Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { remoteAccountByUri, remoteStatusIdByUri } from '../../lib/db/remote';
import { lookupKey, saveActorDocument } from '../../lib/federation/actors';
import { MAX_FEATURED, syncFeatured } from '../../lib/federation/featured';
import { readingFeatured } from '../../lib/federation/featured_requests';
import { AS_PUBLIC, apUrls } from '../../lib/federation/urls';
import { newId } from '../../lib/ids';
import { processActivity } from '../../lib/inbox';
import { enqueue, registerInlineWorker, sqsEvent } from '../../lib/queue';
import { MalformedMessage, type DeliverMessage, type RemoteMediaMessage } from '../../lib/queue/messages';
import { aFollow, aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call } from '../support/http';
import { aRemoteActor as aServedActor, remoteServer, type RemoteServer } from '../support/remote-server';
import { aNote, type Doc } from '../support/activities';

const delivered: DeliverMessage[] = [];
registerInlineWorker('fanout', fanoutWorker);
registerInlineWorker('notify', notifyWorker);
registerInlineWorker('deliver', async (event) => {
  for (const r of event.Records) delivered.push(JSON.parse(r.body) as DeliverMessage);
  return { batchItemFailures: [] };
});
// An actor's save asks the remoteMedia worker to read its featured collection: run here at once (the
// worker itself), or only recorded (`readFeaturedAtOnce` false). This file's other requests, copies of
// remote files, are dropped.
const featuredAsked: RemoteMediaMessage[] = [];
let readFeaturedAtOnce = true;
registerInlineWorker('remoteMedia', async (event) => {
  const records = event.Records.filter((r) => (JSON.parse(r.body) as RemoteMediaMessage).kind === 'featured');
  featuredAsked.push(...records.map((r) => JSON.parse(r.body) as RemoteMediaMessage));
  return readFeaturedAtOnce ? remoteMediaWorker({ Records: records }) : { batchItemFailures: [] };
});
beforeEach(() => {
  delivered.length = 0;
  featuredAsked.length = 0;
});

type Remote = Account & { uri: string; followersUrl: string };

const aRemote = async (domain: string): Promise<Remote> => (await aRemoteAccount({ domain, keyless: true })).account as Remote;
const mentionOf = (a: Account) => `@${a.username}@${a.domain}`;
const idsOf = (body: { id: string }[]) => body.map((s) => s.id);

async function post(user: UserFixture, body: Doc): Promise<string> {
  const res = await call(createStatus, { method: 'POST', path: '/api/v1/statuses', json: body, token: user.token });
  expect(res.status).toBe(200);
  return String(res.body.id);
}

const show = (id: string, token?: string) => call(showStatus, { path: `/api/v1/statuses/${id}`, pathParameters: { id }, token });
const statusesOf = async (account: Account, token?: string, query: Record<string, string> = {}) =>
  idsOf((await call(accountStatuses, { path: `/api/v1/accounts/${account.id}/statuses`, pathParameters: { id: account.id }, token, query })).body);
const publicIds = async (query: Record<string, string> = {}) => idsOf((await call(publicTimeline, { path: '/api/v1/timelines/public', query })).body);
const homeIds = async (user: UserFixture) => idsOf((await call(homeTimeline, { path: '/api/v1/timelines/home', token: user.token })).body);
const searchIds = async (q: string, token: string) =>
  idsOf((await call(search, { path: '/api/v2/search', query: { q, type: 'statuses', resolve: 'false' }, token })).body.statuses);
const contextOf = async (id: string, token?: string) =>
  (await call(contextHandler, { path: `/api/v1/statuses/${id}/context`, pathParameters: { id }, token })).body as { ancestors: { id: string }[]; descendants: { id: string }[] };

const receive = (activity: Doc) =>
  processActivity({ activity, signer: String(activity.actor), receivedAt: new Date().toISOString() });
const createOf = (actor: Remote, note: Doc): Doc => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor.uri}#create-${randomUUID()}`,
  type: 'Create',
  actor: actor.uri,
  to: note.to,
  cc: note.cc,
  object: note,
});
const storedIdOf = async (noteId: string) => (await remoteStatusIdByUri(noteId))!;

describe('sending: followers-only and direct statuses reach only their audience', () => {
  let author: UserFixture;
  let followerOnA: Remote;
  let strangerOnB: Remote;
  let mentionedOnC: Remote;

  beforeAll(async () => {
    author = await aUser();
    followerOnA = await aRemote('vis-a.example');
    strangerOnB = await aRemote('vis-b.example');
    mentionedOnC = await aRemote('vis-c.example');
    // As the inbox worker records an accepted Follow: the edge and the follower's inbox counted.
    const edge = { id: newId(), followerId: followerOnA.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
    expect(await createFollow(edge, { followerInbox: followerOnA.sharedInboxUrl! })).toBe(true);
  });

  const sentTo = () => [...new Set(delivered.filter((d) => d.activity.type === 'Create').map((d) => d.inbox))].sort();

  it('a public status goes to the follower’s server (the twin of the cases below)', async () => {
    await post(author, { status: 'for all', visibility: 'public' });
    expect(sentTo()).toEqual([followerOnA.sharedInboxUrl]);
  });

  it('a followers-only status goes to the followers’ inboxes only, Public nowhere', async () => {
    await post(author, { status: 'friends only', visibility: 'private' });
    expect(sentTo()).toEqual([followerOnA.sharedInboxUrl]);
    expect(JSON.stringify(delivered)).not.toContain(AS_PUBLIC);
  });

  it('a followers-only status mentioning someone also reaches the mentioned, no one else', async () => {
    await post(author, { status: `friends and ${mentionOf(mentionedOnC)}`, visibility: 'private' });
    expect(sentTo()).toEqual([followerOnA.sharedInboxUrl, mentionedOnC.sharedInboxUrl].sort());
  });

  it('a direct status goes to the mentioned only: not to followers, not to strangers', async () => {
    await post(author, { status: `${mentionOf(mentionedOnC)} psst`, visibility: 'direct' });
    expect(sentTo()).toEqual([mentionedOnC.sharedInboxUrl]);
    expect(JSON.stringify(delivered)).not.toContain(AS_PUBLIC);
    expect(JSON.stringify(delivered)).not.toContain(strangerOnB.uri);
  });

  it('the outbox and an unsigned fetch show the public status and neither the followers-only nor the direct one', async () => {
    const open = await post(author, { status: 'open', visibility: 'public' });
    const hidden = await post(author, { status: 'hidden', visibility: 'private' });
    const secret = await post(author, { status: `${mentionOf(mentionedOnC)} secret`, visibility: 'direct' });
    const username = author.account.username;
    const page = await call(outbox, { path: `/users/${username}/outbox`, pathParameters: { username }, query: { page: 'true' }, headers: { accept: 'application/activity+json' } });
    expect(page.status).toBe(200);
    const objectIds = (page.body.orderedItems as { object: { id: string } | string }[]).map((a) => (typeof a.object === 'string' ? a.object : a.object.id));
    expect(objectIds).toContain(apUrls.status(username, open));
    expect(objectIds).not.toContain(apUrls.status(username, hidden));
    expect(objectIds).not.toContain(apUrls.status(username, secret));
    const fetchNote = (id: string) =>
      call(statusDoc, { path: `/users/${username}/statuses/${id}`, pathParameters: { username, id }, headers: { accept: 'application/activity+json' } });
    expect((await fetchNote(open)).status).toBe(200);
    expect((await fetchNote(hidden)).status).toBe(404);
    expect((await fetchNote(secret)).status).toBe(404);
  });
});

describe('receiving: a followers-only status is shown only to its author’s local followers', () => {
  let author: Remote;
  let follower: UserFixture;
  let stranger: UserFixture;
  let hiddenId: string;
  let openId: string;
  let replyId: string;
  let hiddenUri: string;
  let openUri: string;
  const word = `zebracorn${Date.now().toString(36)}`;

  beforeAll(async () => {
    author = await aRemote('vis-remote.example');
    follower = await aUser();
    stranger = await aUser();
    await aFollow(follower.account, author);
    const hidden = aNote(author, { to: [author.followersUrl], cc: [], content: `<p>only friends ${word}</p>` });
    const open = aNote(author, { content: `<p>everyone ${word}</p>` });
    const reply = aNote(author, { inReplyTo: hidden.id, content: '<p>a public reply to the hidden one</p>' });
    [hiddenUri, openUri] = [hidden.id, open.id];
    for (const note of [hidden, open, reply]) expect(await receive(createOf(author, note))).toBe('applied');
    [hiddenId, openId, replyId] = await Promise.all([storedIdOf(hidden.id), storedIdOf(open.id), storedIdOf(reply.id)]);
  });

  it('is stored as private', async () => {
    const res = await show(hiddenId, follower.token);
    expect(res.status).toBe(200);
    expect(res.body.visibility).toBe('private');
  });

  it('GET /api/v1/statuses/:id: 200 for a follower, 404 for a non-follower and for no one signed in', async () => {
    expect((await show(hiddenId, stranger.token)).status).toBe(404);
    expect((await show(hiddenId, stranger.token)).body).toEqual({ error: 'Record not found' });
    expect((await show(hiddenId)).status).toBe(404);
    expect((await show(openId, stranger.token)).status).toBe(200);
  });

  it('is in the follower’s home only', async () => {
    expect(await homeIds(follower)).toEqual(expect.arrayContaining([hiddenId, openId]));
    expect(await homeIds(stranger)).not.toContain(hiddenId);
  });

  it('is absent from the public timelines, where the public one is', async () => {
    for (const query of [{}, { remote: 'true' }] as Record<string, string>[]) {
      const ids = await publicIds(query);
      expect(ids).toContain(openId);
      expect(ids).not.toContain(hiddenId);
    }
  });

  it('the account’s statuses: listed for a follower, not for a non-follower or no one', async () => {
    expect(await statusesOf(author, follower.token)).toContain(hiddenId);
    expect(await statusesOf(author, stranger.token)).not.toContain(hiddenId);
    expect(await statusesOf(author, stranger.token)).toContain(openId);
    expect(await statusesOf(author)).not.toContain(hiddenId);
  });

  it('search: a non-follower finds the public one by a word and by its URL, the followers-only one by neither', async () => {
    const byWord = await searchIds(word, stranger.token);
    expect(byWord).toContain(openId);
    expect(byWord).not.toContain(hiddenId);
    expect(await searchIds(hiddenUri, stranger.token)).toEqual([]);
    expect(await searchIds(openUri, stranger.token)).toEqual([openId]);
  });

  it('context of a public reply to it: the follower sees it as ancestor, the non-follower does not', async () => {
    expect(idsOf((await contextOf(replyId, follower.token)).ancestors)).toEqual([hiddenId]);
    expect(idsOf((await contextOf(replyId, stranger.token)).ancestors)).toEqual([]);
    expect(idsOf((await contextOf(replyId)).ancestors)).toEqual([]);
    expect((await call(contextHandler, { path: `/api/v1/statuses/${hiddenId}/context`, pathParameters: { id: hiddenId }, token: stranger.token })).status).toBe(404);
  });
});

// ---- remote profiles and their pinned posts, from a peer on loopback ----

let peer: RemoteServer;
beforeAll(async () => {
  peer = await remoteServer();
});
afterAll(async () => {
  await peer.close();
});
/** Only the local stage may fetch from loopback (lib/federation/guard.ts). */
function onLoopback() {
  beforeAll(() => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
  });
  afterAll(() => {
    process.env.STAGE = 'test';
    delete process.env.FEDERATION_ALLOW_PRIVATE;
  });
}

const accountJson = async (account: Account) => (await call(showAccount, { path: `/api/v1/accounts/${account.id}`, pathParameters: { id: account.id } })).body;

describe('remote profiles', () => {
  onLoopback();
  const name = `prof${Date.now().toString(36)}`;
  const served = () =>
    aServedActor(peer.origin, name, {
      name: 'Profile Person',
      summary: '<p>Hello <script>alert(1)</script><a href="https://x.example/" onclick="evil()">link</a></p>',
      icon: { type: 'Image', mediaType: 'image/png', url: `${peer.origin}/avatars/${name}.png` },
      image: { type: 'Image', mediaType: 'image/jpeg', url: `${peer.origin}/headers/${name}.jpg` },
      attachment: [
        { type: 'PropertyValue', name: 'Site <b>bold</b>', value: '<a href="https://site.example/" rel="me" onmouseover="x()">site.example</a><script>bad()</script>' },
        { type: 'PropertyValue', name: 'Pronouns', value: 'they/them' },
      ],
    });

  it('renders avatar, header, fields and note, the HTML sanitised', async () => {
    const account = (await saveActorDocument(served().doc))!;
    const body = await accountJson(account);
    expect(body).toMatchObject({
      acct: `${name}@${peer.host}`,
      display_name: 'Profile Person',
      avatar: `${peer.origin}/avatars/${name}.png`,
      header: `${peer.origin}/headers/${name}.jpg`,
    });
    expect(body.note).toContain('<a href="https://x.example/"');
    expect(body.note).not.toMatch(/script|onclick|alert/);
    expect(body.fields).toHaveLength(2);
    // A field's name is text in ActivityPub and in Mastodon's API (clients escape it); its value is HTML, sanitised.
    expect(body.fields[0].name).toBe('Site <b>bold</b>');
    expect(body.fields[0].value).toContain('href="https://site.example/"');
    expect(body.fields[0].value).not.toMatch(/script|onmouseover|bad\(\)/);
    expect(body.fields[1]).toMatchObject({ name: 'Pronouns', value: 'they/them' });
  });

  it('Update(Person) from the actor replaces name, note and fields; one from someone else changes nothing', async () => {
    const actor = served();
    const account = (await remoteAccountByUri(actor.doc.id))!;
    const changed = { ...actor.doc, name: 'Renamed', summary: '<p>new note</p>', attachment: [{ type: 'PropertyValue', name: 'Only', value: 'one' }] };
    const mallory = await aRemote('vis-mallory.example');
    const forged = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mallory.uri}#u-${randomUUID()}`, type: 'Update', actor: mallory.uri, object: { ...changed, name: 'Forged' } };
    expect(await receive(forged)).toBe('ignored');
    expect((await accountJson(account)).display_name).toBe('Profile Person');
    const update = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor.doc.id}#u-${randomUUID()}`, type: 'Update', actor: actor.doc.id, object: changed };
    expect(await receive(update)).toBe('applied');
    const body = await accountJson(account);
    expect(body).toMatchObject({ display_name: 'Renamed', note: '<p>new note</p>', fields: [{ name: 'Only', value: 'one' }] });
  });
});

describe('pinned posts of remote accounts (the featured collection)', () => {
  onLoopback();
  const name = `pins${Date.now().toString(36)}`;
  const actorId = () => `${peer.origin}/users/${name}`;
  const featuredUrl = () => `${actorId()}/collections/featured`;
  const noteAt = (n: number, overrides: Doc = {}) => ({
    id: `${actorId()}/statuses/${n}`,
    type: 'Note',
    attributedTo: actorId(),
    content: `<p>pinned ${n}</p>`,
    published: new Date(Date.UTC(2026, 0, n)).toISOString(),
    to: [AS_PUBLIC],
    cc: [`${actorId()}/followers`],
    ...overrides,
  });
  const served = () => aServedActor(peer.origin, name, { featured: featuredUrl() });
  const serveCollection = (items: unknown[], opts: { paged?: boolean } = {}) => {
    if (!opts.paged) return peer.serve({ '@context': 'https://www.w3.org/ns/activitystreams', id: featuredUrl(), type: 'OrderedCollection', totalItems: items.length, orderedItems: items });
    peer.serve({ '@context': 'https://www.w3.org/ns/activitystreams', id: featuredUrl(), type: 'OrderedCollection', totalItems: items.length, first: `${featuredUrl()}/page1` });
    peer.serve({ id: `${featuredUrl()}/page1`, type: 'OrderedCollectionPage', partOf: featuredUrl(), orderedItems: items });
  };
  const pinnedUris = async (account: Account, token?: string) =>
    ((await call(accountStatuses, { path: `/api/v1/accounts/${account.id}/statuses`, pathParameters: { id: account.id }, token, query: { pinned: 'true' } })).body as { uri: string }[])
      .map((s) => s.uri)
      .sort();
  const fetched = (path: string) => peer.received.some((r) => r.method === 'GET' && r.path === path);
  let account: Account;
  let follower: UserFixture;

  beforeAll(async () => {
    follower = await aUser();
    for (const n of [2, 5, 6, 7]) peer.serve(noteAt(n));
  });

  it(`pins what the collection lists: embedded or by id, its own Notes only, at most ${MAX_FEATURED} items read`, async () => {
    serveCollection([
      noteAt(1),
      noteAt(2).id,
      'https://elsewhere.example/users/x/statuses/1',
      noteAt(4, { attributedTo: `${peer.origin}/users/someone-else` }),
      noteAt(5).id,
      noteAt(6).id,
    ]);
    account = (await saveActorDocument(served().doc))!;
    expect(await pinnedUris(account)).toEqual([noteAt(1).id, noteAt(2).id, noteAt(5).id].sort());
    // The sixth item is past the bound: never fetched.
    expect(fetched(new URL(noteAt(6).id).pathname)).toBe(false);
    expect(await remoteStatusIdByUri(noteAt(4).id)).toBeUndefined();
  });

  it('a later fetch replaces the set (a collection paged this time); the stored Notes are not fanned out to followers', async () => {
    await aFollow(follower.account, account);
    serveCollection([noteAt(2).id, noteAt(7).id], { paged: true });
    await saveActorDocument(served().doc);
    expect(await pinnedUris(account)).toEqual([noteAt(2).id, noteAt(7).id].sort());
    const seventh = await remoteStatusIdByUri(noteAt(7).id);
    expect(seventh).toBeDefined();
    expect(await homeIds(follower)).not.toContain(seventh);
  });

  it('a collection that cannot be read keeps the set; an empty one clears it', async () => {
    peer.route('GET', new URL(featuredUrl()).pathname, { status: 500, body: '' });
    await saveActorDocument(served().doc);
    expect(await pinnedUris(account)).toEqual([noteAt(2).id, noteAt(7).id].sort());
    serveCollection([]);
    await saveActorDocument(served().doc);
    expect(await pinnedUris(account)).toEqual([]);
  });

  it('Add and Remove on its featured collection pin and unpin; another target, another’s Note or another actor change nothing', async () => {
    const addOf = (actor: string, object: string, target = featuredUrl()) =>
      ({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}#add-${randomUUID()}`, type: 'Add', actor, object, target });
    peer.serve(noteAt(8));
    peer.serve(noteAt(9, { attributedTo: `${peer.origin}/users/someone-else` }));
    expect(await receive(addOf(actorId(), noteAt(8).id, `${actorId()}/collections/tags`))).toBe('ignored');
    expect(await receive(addOf(actorId(), noteAt(9).id))).toBe('ignored');
    expect(await pinnedUris(account)).toEqual([]);
    expect(await receive(addOf(actorId(), noteAt(8).id))).toBe('applied');
    expect(await pinnedUris(account)).toEqual([noteAt(8).id]);

    const other = (await aRemoteAccount({ domain: 'vis-other.example', keyless: true })).account as Remote;
    const removeBy = (actor: string) => ({ ...addOf(actor, noteAt(8).id), id: `${actor}#remove-${randomUUID()}`, type: 'Remove' });
    expect(await receive(removeBy(other.uri))).toBe('ignored');
    expect(await pinnedUris(account)).toEqual([noteAt(8).id]);
    expect(await receive(removeBy(actorId()))).toBe('applied');
    expect(await pinnedUris(account)).toEqual([]);
  });

  it('pinning and unpinning here send Add and Remove of the status to the followers’ servers', async () => {
    const author = await aUser();
    const follower = await aRemote('vis-pins.example');
    const edge = { id: newId(), followerId: follower.id, followedId: author.account.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() };
    expect(await createFollow(edge, { followerInbox: follower.sharedInboxUrl! })).toBe(true);
    const id = await post(author, { status: 'pin me', visibility: 'public' });
    delivered.length = 0;
    const pinPath = (action: string) => ({ method: 'POST', path: `/api/v1/statuses/${id}/${action}`, pathParameters: { id }, token: author.token });
    expect((await call(pinHandler, pinPath('pin'))).status).toBe(200);
    expect((await call(pinHandler, pinPath('pin'))).status).toBe(200);
    expect((await call(unpinHandler, pinPath('unpin'))).status).toBe(200);
    const username = author.account.username;
    expect(delivered.map((d) => [d.inbox, d.activity.type, d.activity.object, d.activity.target])).toEqual([
      [follower.sharedInboxUrl, 'Add', apUrls.status(username, id), apUrls.featured(username)],
      [follower.sharedInboxUrl, 'Remove', apUrls.status(username, id), apUrls.featured(username)],
    ]);
  });

  it('an actor first met through a signature check has its collection read later, not while the request waits', async () => {
    const keyed = aServedActor(peer.origin, `${name}k`, { featured: `${peer.origin}/users/${name}k/collections/featured` });
    peer.serve(keyed.doc);
    const found = await lookupKey(keyed.keyId, { refresh: false });
    expect(found?.ownerUri).toBe(keyed.doc.id);
    expect(peer.received.some((r) => r.path === `/users/${name}k`)).toBe(true);
    expect(fetched(`/users/${name}k/collections/featured`)).toBe(false);
  });

  it('a collection on another origin than the actor is not read', async () => {
    const before = peer.received.length;
    const other = aServedActor(peer.origin, `${name}x`, { featured: 'https://elsewhere.example/featured' });
    const saved = (await saveActorDocument(other.doc))!;
    expect(await pinnedUris(saved)).toEqual([]);
    expect(peer.received.length).toBe(before);
  });

  it('a save asks for the collection and does not wait on it: the worker reads it after', async () => {
    readFeaturedAtOnce = false;
    try {
      const later = aServedActor(peer.origin, `${name}l`, { featured: `${peer.origin}/users/${name}l/collections/featured` });
      peer.serve({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.origin}/users/${name}l/collections/featured`, type: 'OrderedCollection', orderedItems: [] });
      const saved = (await saveActorDocument(later.doc))!;
      expect(featuredAsked).toEqual([{ kind: 'featured', accountId: saved.id }]);
      expect(fetched(`/users/${name}l/collections/featured`)).toBe(false);
      // The worker, given the message: the collection read then.
      expect(await remoteMediaWorker(sqsEvent('remoteMedia', featuredAsked))).toEqual({ batchItemFailures: [] });
      expect(fetched(`/users/${name}l/collections/featured`)).toBe(true);
    } finally {
      readFeaturedAtOnce = true;
    }
  });

  it('a featured message for an account that is gone, local, or without a collection reads nothing and fails nothing', async () => {
    const before = peer.received.length;
    const local = await aUser();
    const bare = (await aRemoteAccount({ domain: 'vis-bare.example', keyless: true })).account;
    const messages: RemoteMediaMessage[] = [
      { kind: 'featured', accountId: newId() },
      { kind: 'featured', accountId: local.account.id },
      { kind: 'featured', accountId: bare.id },
    ];
    expect(await remoteMediaWorker(sqsEvent('remoteMedia', messages))).toEqual({ batchItemFailures: [] });
    expect(peer.received.length).toBe(before);
    // One that breaks the queue's contract is refused where it is sent, and reaches no worker.
    await expect(enqueue('remoteMedia', { kind: 'featured', accountId: 'not an id' } as never)).rejects.toThrow(MalformedMessage);
    expect(featuredAsked).toEqual([]);
  });

  it('an actor saved while a collection is read asks for nothing (pins never start a chain)', async () => {
    const inner = aServedActor(peer.origin, `${name}i`, { featured: `${peer.origin}/users/${name}i/collections/featured` });
    await readingFeatured.run(true, () => saveActorDocument(inner.doc));
    expect(featuredAsked).toEqual([]);
    await saveActorDocument(inner.doc);
    expect(featuredAsked).toHaveLength(1);
  });

  it('a read out of time reads no item and keeps the pins', async () => {
    serveCollection([noteAt(2).id, noteAt(7).id]);
    await saveActorDocument(served().doc);
    expect(await pinnedUris(account)).toEqual([noteAt(2).id, noteAt(7).id].sort());
    peer.serve(noteAt(10));
    serveCollection([noteAt(10).id]);
    await syncFeatured((await remoteAccountByUri(actorId()))!, 5_000);
    expect(fetched(new URL(noteAt(10).id).pathname)).toBe(false);
    expect(await pinnedUris(account)).toEqual([noteAt(2).id, noteAt(7).id].sort());
  });
});
