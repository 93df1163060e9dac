// What we serve to other servers (issue 12, "Served to other servers"): the Person,
// the instance actor, Notes and their Create, the outbox, followers, following and
// featured collections, the profile URLs with content negotiation, WebFinger for the
// instance actor and NodeInfo 2.1, called through the handlers against dynalite.
// Followers-only and direct statuses are fetched with real HTTP Signatures by remote
// actors stored the way lib/federation/actors.ts stores them.
import { createPublicKey } from 'node:crypto';
import { handler as activity } from '../../functions/activitypub/activity';
import { handler as actor } from '../../functions/activitypub/actor';
import { handler as featured } from '../../functions/activitypub/featured';
import { handler as followers } from '../../functions/activitypub/followers';
import { handler as following } from '../../functions/activitypub/following';
import { handler as instanceActor } from '../../functions/activitypub/instance_actor';
import { handler as instanceOutbox } from '../../functions/activitypub/instance_outbox';
import { handler as outbox } from '../../functions/activitypub/outbox';
import { handler as profile } from '../../functions/activitypub/profile';
import { handler as profileStatus } from '../../functions/activitypub/profile_status';
import { handler as statusDoc } from '../../functions/activitypub/status';
import { handler as nodeinfo21 } from '../../functions/wellknown/nodeinfo_document_21';
import { handler as webfinger } from '../../functions/wellknown/webfinger';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { putEmoji } from '../../lib/db/emojis';
import { addPin } from '../../lib/db/interactions';
import type { Status } from '../../lib/db/statuses';
import { renderNote } from '../../lib/federation/render';
import { signRequest } from '../../lib/federation/signatures';
import { newId } from '../../lib/ids';
import { call, type Answer } from '../support/http';
import { aBareAccount, aFollow, aMediaAttachment, aPostedReblog, aPostedStatus, aRemoteAccount, aStoredStatus } from '../support/factories';

const BASE = 'https://social.example';
const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const AP_ACCEPT = 'application/activity+json';
const LD_ACCEPT = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

type Handler = Parameters<typeof call>[0];

/** GET `path` through `handler` as API Gateway routes it, with the path variables its route names. */
const get = (handler: Handler, path: string, params: Record<string, string>, headers: Record<string, string> = {}, query?: string) =>
  call(handler, { path, pathParameters: params, headers: { accept: AP_ACCEPT, ...headers }, query });

const expectActivityJson = (res: Answer) => {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/activity+json; charset=utf-8');
};

const expectNotFound = (res: Answer) => {
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: 'Record not found' });
};

// ---- a remote actor with a key of its own, stored as a fetched actor is ----

type RemoteActor = { account: Account; keyId: string; privateKeyPem: string };

async function aRemoteActor(domain = 'remote.example'): Promise<RemoteActor> {
  const { account, signer } = await aRemoteAccount({ domain, username: `peer${newId().slice(-8)}` });
  return { account, ...signer };
}

/** The headers of a GET of `path` signed by `by` (draft-cavage, as Mastodon's authorized fetch sends it). */
const signedBy = (by: RemoteActor, path: string): Record<string, string> =>
  signRequest({ method: 'GET', url: `${BASE}${path}` }, { keyId: by.keyId, privateKeyPem: by.privateKeyPem });

const mentionOf = (account: Account) => ({
  id: account.id,
  username: account.username,
  acct: account.domain ? `${account.username}@${account.domain}` : account.username,
  url: account.url ?? `${BASE}/@${account.username}`,
});

describe('GET /users/:username (the Person)', () => {
  let alice: Account;
  beforeAll(async () => {
    alice = await aBareAccount({ displayName: 'Alice :blobcat:' });
    await putEmoji({ shortcode: 'blobcat', key: 'custom_emojis/x/blobcat.png', staticKey: 'custom_emojis/x/blobcat-static.png', category: null, visibleInPicker: true, createdAt: new Date().toISOString() });
    alice = (await updateAccount(alice.id, {
      note: 'Hello there',
      noteHtml: '<p>Hello there</p>',
      fields: [{ name: 'Site', value: 'https://alice.example' }],
      fieldsHtml: [{ name: 'Site', value: '<a href="https://alice.example" rel="me nofollow noopener noreferrer">alice.example</a>', verifiedAt: null }],
      locked: true,
      discoverable: true,
      avatarKey: `accounts/avatars/${alice.id}/abc.png`,
    }))!;
  });

  it('serves the account as a Person with what Mastodon serves, and its RSA-2048 public key', async () => {
    const res = await get(actor, `/users/${alice.username}`, { username: alice.username });
    expectActivityJson(res);
    const me = `${BASE}/users/${alice.username}`;
    expect(res.body['@context']).toEqual(
      expect.arrayContaining(['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1', expect.objectContaining({ toot: 'http://joinmastodon.org/ns#', PropertyValue: 'schema:PropertyValue' })]),
    );
    expect(res.body).toMatchObject({
      id: me,
      type: 'Person',
      preferredUsername: alice.username,
      name: 'Alice :blobcat:',
      summary: '<p>Hello there</p>',
      url: `${BASE}/@${alice.username}`,
      inbox: `${me}/inbox`,
      outbox: `${me}/outbox`,
      followers: `${me}/followers`,
      following: `${me}/following`,
      featured: `${me}/collections/featured`,
      endpoints: { sharedInbox: `${BASE}/inbox` },
      manuallyApprovesFollowers: true,
      discoverable: true,
      published: expect.stringMatching(/^\d{4}-\d\d-\d\dT00:00:00Z$/),
      icon: { type: 'Image', mediaType: 'image/png', url: expect.stringContaining(`accounts/avatars/${alice.id}/abc.png`) },
      attachment: [{ type: 'PropertyValue', name: 'Site', value: expect.stringContaining('href="https://alice.example"') }],
      tag: [{ type: 'Emoji', name: ':blobcat:', id: `${BASE}/emojis/blobcat`, icon: { type: 'Image', mediaType: 'image/png', url: expect.stringContaining('blobcat.png') } }],
      publicKey: { id: `${me}#main-key`, owner: me, publicKeyPem: expect.stringContaining('-----BEGIN PUBLIC KEY-----') },
    });
    expect(res.body).not.toHaveProperty('image');
    const key = createPublicKey(res.body.publicKey.publicKeyPem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(res.headers['cache-control']).toBe('public, max-age=180');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
  });

  it('carries the profile terms of Mastodon 4.4-4.6 and the images\' descriptions as their names', async () => {
    const described = (await updateAccount(alice.id, {
      indexable: true,
      attributionDomains: ['news.example'],
      showMedia: false,
      avatarDescription: 'A blob cat',
      headerKey: `accounts/headers/${alice.id}/h.png`,
    }))!;
    const res = await get(actor, `/users/${described.username}`, { username: described.username });
    expect(res.body).toMatchObject({
      indexable: true,
      attributionDomains: ['news.example'],
      showFeatured: true,
      showMedia: false,
      showRepliesInMedia: true,
      icon: { type: 'Image', name: 'A blob cat' },
    });
    expect(res.body.image).not.toHaveProperty('name');
    expect(res.body['@context']).toEqual(expect.arrayContaining([expect.objectContaining({ indexable: 'toot:indexable', showMedia: 'toot:showMedia' })]));
    await updateAccount(alice.id, { indexable: false, attributionDomains: [], showMedia: true, avatarDescription: '', headerKey: null });
  });

  it('serves the same key on every fetch', async () => {
    const first = await get(actor, `/users/${alice.username}`, { username: alice.username });
    const again = await get(actor, `/users/${alice.username}`, { username: alice.username }, { accept: LD_ACCEPT });
    expect(again.body.publicKey.publicKeyPem).toBe(first.body.publicKey.publicKeyPem);
  });

  it('serves a bot as a Service, with no icon when it has no avatar', async () => {
    const bot = (await updateAccount((await aBareAccount()).id, { bot: true }))!;
    const res = await get(actor, `/users/${bot.username}`, { username: bot.username });
    expect(res.body.type).toBe('Service');
    expect(res.body).not.toHaveProperty('icon');
    expect(res.body.manuallyApprovesFollowers).toBe(false);
  });

  it('sends a browser to the profile page', async () => {
    const res = await get(actor, `/users/${alice.username}`, { username: alice.username }, { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BASE}/@${alice.username}`);
    expect(res.headers.vary).toBe('Accept');
  });

  it.each([
    ['an unknown username', async () => 'nobody_here_at_all'],
    ['the username of a remote account', async () => (await aBareAccount({ domain: 'elsewhere.example' })).username],
    ['an overlong username', async () => 'x'.repeat(300)],
  ])('answers 404 "Record not found" for %s', async (_what, name) => {
    const username = await name();
    expectNotFound(await get(actor, `/users/${username}`, { username }));
  });
});

describe('GET /actor (the instance actor)', () => {
  it('is an Application named after the host, whose inbox is the shared inbox, with a key', async () => {
    const res = await get(instanceActor, '/actor', {});
    expectActivityJson(res);
    expect(res.body).toMatchObject({
      id: `${BASE}/actor`,
      type: 'Application',
      preferredUsername: 'social.example',
      inbox: `${BASE}/inbox`,
      outbox: `${BASE}/actor/outbox`,
      endpoints: { sharedInbox: `${BASE}/inbox` },
      publicKey: { id: `${BASE}/actor#main-key`, owner: `${BASE}/actor`, publicKeyPem: expect.stringContaining('-----BEGIN PUBLIC KEY-----') },
    });
    expect(createPublicKey(res.body.publicKey.publicKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('has an empty outbox', async () => {
    const res = await get(instanceOutbox, '/actor/outbox', {});
    expectActivityJson(res);
    expect(res.body).toMatchObject({ id: `${BASE}/actor/outbox`, type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
  });

  it('is found by WebFinger as acct:<host>@<domain> and by its URL', async () => {
    for (const resource of ['acct:social.example@social.example', `${BASE}/actor`]) {
      const res = await call(webfinger, { path: '/.well-known/webfinger', query: { resource } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        subject: 'acct:social.example@social.example',
        aliases: [`${BASE}/actor`],
        links: [{ rel: 'self', type: 'application/activity+json', href: `${BASE}/actor` }],
      });
    }
  });
});

describe('GET /nodeinfo/2.1', () => {
  it('answers the NodeInfo document in the 2.1 schema', async () => {
    const res = await call(nodeinfo21, { path: '/nodeinfo/2.1' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"');
    expect(res.body).toMatchObject({
      version: '2.1',
      software: { name: 'tootless', version: expect.any(String) },
      protocols: ['activitypub'],
      usage: { users: { total: expect.any(Number), activeMonth: expect.any(Number), activeHalfyear: expect.any(Number) }, localPosts: expect.any(Number) },
      openRegistrations: expect.any(Boolean),
    });
  });
});

describe('statuses as Notes', () => {
  let bob: Account;
  let carol: Account;
  let follower: RemoteActor;
  let mentioned: RemoteActor;
  let stranger: RemoteActor;
  let parent: Status;
  let publicStatus: Status;
  let unlisted: Status;
  let privateStatus: Status;
  let direct: Status;

  const noteAt = (s: Status) => `/users/${bob.username}/statuses/${s.id}`;
  const fetchNote = (s: Status, headers: Record<string, string> = {}) => get(statusDoc, noteAt(s), { username: bob.username, id: s.id }, headers);

  beforeAll(async () => {
    bob = await aBareAccount();
    carol = await aBareAccount();
    [follower, mentioned, stranger] = await Promise.all([aRemoteActor('one.example'), aRemoteActor('two.example'), aRemoteActor('three.example')]);
    await aFollow(follower.account, bob);
    await putEmoji({ shortcode: 'wave', key: 'custom_emojis/y/wave.gif', staticKey: 'custom_emojis/y/wave-static.png', category: null, visibleInPicker: true, createdAt: new Date().toISOString() });
    parent = await aStoredStatus(carol);
    const media = await aMediaAttachment(bob, { description: 'a red square' });
    publicStatus = await aStoredStatus(bob, {
      text: 'hi @carol #Cats :wave:',
      contentHtml: '<p>hi @carol #Cats :wave:</p>',
      spoilerText: 'cw',
      sensitive: true,
      language: 'en',
      inReplyToId: parent.id,
      inReplyToAccountId: carol.id,
      mentions: [mentionOf(carol), mentionOf(mentioned.account)],
      tags: ['cats'],
      mediaIds: [media.id],
    });
    unlisted = await aStoredStatus(bob, { visibility: 'unlisted' });
    privateStatus = await aStoredStatus(bob, { visibility: 'private', mentions: [mentionOf(mentioned.account)] });
    direct = await aStoredStatus(bob, { visibility: 'direct', mentions: [mentionOf(mentioned.account)] });
  });

  it('serves a public status as a Note: audience, reply, mentions, hashtags, emoji, attachments', async () => {
    const res = await fetchNote(publicStatus);
    expectActivityJson(res);
    expect(res.headers['cache-control']).toBe('public, max-age=180');
    const carolUri = `${BASE}/users/${carol.username}`;
    expect(res.body).toMatchObject({
      id: `${BASE}${noteAt(publicStatus)}`,
      type: 'Note',
      attributedTo: `${BASE}/users/${bob.username}`,
      url: `${BASE}/@${bob.username}/${publicStatus.id}`,
      published: publicStatus.createdAt,
      content: '<p>hi @carol #Cats :wave:</p>',
      contentMap: { en: '<p>hi @carol #Cats :wave:</p>' },
      summary: 'cw',
      sensitive: true,
      inReplyTo: `${BASE}/users/${carol.username}/statuses/${parent.id}`,
      to: [AS_PUBLIC],
      cc: [`${BASE}/users/${bob.username}/followers`, carolUri, mentioned.account.uri],
    });
    expect(res.body['@context']).toEqual(expect.arrayContaining(['https://www.w3.org/ns/activitystreams']));
    expect(res.body.tag).toEqual([
      { type: 'Mention', href: carolUri, name: `@${carol.username}@social.example` },
      { type: 'Mention', href: mentioned.account.uri, name: `@${mentioned.account.username}@two.example` },
      { type: 'Hashtag', href: `${BASE}/tags/cats`, name: '#cats' },
      expect.objectContaining({ type: 'Emoji', name: ':wave:', icon: expect.objectContaining({ mediaType: 'image/gif' }) }),
    ]);
    expect(res.body.attachment).toEqual([
      {
        type: 'Document',
        mediaType: 'image/png',
        url: expect.stringContaining(`media_attachments/files/`),
        name: 'a red square',
        blurhash: null,
        width: 10,
        height: 10,
      },
    ]);
  });

  it('addresses an unlisted status to the followers, with Public in cc', async () => {
    const res = await fetchNote(unlisted);
    expectActivityJson(res);
    expect(res.body).toMatchObject({ to: [`${BASE}/users/${bob.username}/followers`], cc: [AS_PUBLIC], summary: null, inReplyTo: null });
  });

  it('serves its Create at /activity, with the same audience and the Note embedded', async () => {
    const res = await get(activity, `${noteAt(publicStatus)}/activity`, { username: bob.username, id: publicStatus.id });
    expectActivityJson(res);
    const note = (await fetchNote(publicStatus)).body;
    const { '@context': _context, ...noteWithoutContext } = note;
    expect(res.body).toMatchObject({
      id: `${BASE}${noteAt(publicStatus)}/activity`,
      type: 'Create',
      actor: `${BASE}/users/${bob.username}`,
      to: note.to,
      cc: note.cc,
      object: noteWithoutContext,
    });
  });

  it('sends a browser to the status page', async () => {
    const res = await fetchNote(publicStatus, { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BASE}/@${bob.username}/${publicStatus.id}`);
  });

  describe('followers-only and direct statuses', () => {
    it.each([
      ['unsigned', () => ({})],
      ['signed by an actor that neither follows nor is mentioned', () => signedBy(stranger, noteAt(privateStatus))],
      ['signed for another path', () => signedBy(follower, noteAt(unlisted))],
      ['with a forged signature', () => ({ ...signedBy(follower, noteAt(privateStatus)), signature: signedBy(stranger, noteAt(privateStatus)).signature!.replace(stranger.keyId, follower.keyId) })],
      ['signed with a stale date', () => signRequest({ method: 'GET', url: `${BASE}${noteAt(privateStatus)}` }, { keyId: follower.keyId, privateKeyPem: follower.privateKeyPem }, new Date(Date.now() - 2 * 3600_000))],
      // What a follower signed for another server, replayed here by that server.
      ['signed by a follower for another host', () => signRequest({ method: 'GET', url: `https://elsewhere.example${noteAt(privateStatus)}` }, { keyId: follower.keyId, privateKeyPem: follower.privateKeyPem })],
    ])('a followers-only status is not found %s', async (_how, headers) => {
      expectNotFound(await fetchNote(privateStatus, headers()));
      expectNotFound(await get(activity, `${noteAt(privateStatus)}/activity`, { username: bob.username, id: privateStatus.id }, headers()));
    });

    it('serves a followers-only status to a signed request of a follower, never to caches', async () => {
      const res = await fetchNote(privateStatus, signedBy(follower, noteAt(privateStatus)));
      expectActivityJson(res);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.body).toMatchObject({ to: [`${BASE}/users/${bob.username}/followers`], cc: [mentioned.account.uri] });
      expect(JSON.stringify(res.body)).not.toContain(AS_PUBLIC);
    });

    it('serves a followers-only status to a signed request of a mentioned actor', async () => {
      expectActivityJson(await fetchNote(privateStatus, signedBy(mentioned, noteAt(privateStatus))));
    });

    it('serves a direct status only to the mentioned actor, addressed to it alone', async () => {
      expectNotFound(await fetchNote(direct));
      expectNotFound(await fetchNote(direct, signedBy(follower, noteAt(direct))));
      const res = await fetchNote(direct, signedBy(mentioned, noteAt(direct)));
      expectActivityJson(res);
      expect(res.body).toMatchObject({ to: [mentioned.account.uri], cc: [] });
      const path = `${noteAt(direct)}/activity`;
      const created = await get(activity, path, { username: bob.username, id: direct.id }, signedBy(mentioned, path));
      expect(created.body).toMatchObject({ type: 'Create', to: [mentioned.account.uri], cc: [] });
    });
  });

  it.each([
    ['a status of someone else under this username', () => ({ username: () => bob.username, id: () => parent.id })],
    ['an id that is not one', () => ({ username: () => bob.username, id: () => 'abc' })],
    ['a status that does not exist', () => ({ username: () => bob.username, id: () => newId() })],
    ['an unknown user', () => ({ username: () => 'nobody_here_at_all', id: () => publicStatus.id })],
  ])('answers 404 for %s', async (_what, at) => {
    const { username, id } = at();
    expectNotFound(await get(statusDoc, `/users/${username()}/statuses/${id()}`, { username: username(), id: id() }));
  });

  it('answers 404 for a reblog as a Note, and serves its Announce at /activity', async () => {
    const reblog = await aPostedReblog(bob, parent);
    expectNotFound(await fetchNote(reblog));
    const res = await get(activity, `${noteAt(reblog)}/activity`, { username: bob.username, id: reblog.id });
    expectActivityJson(res);
    expect(res.body).toMatchObject({
      id: `${BASE}${noteAt(reblog)}/activity`,
      type: 'Announce',
      actor: `${BASE}/users/${bob.username}`,
      object: `${BASE}/users/${carol.username}/statuses/${parent.id}`,
      to: [AS_PUBLIC],
      cc: [`${BASE}/users/${carol.username}`, `${BASE}/users/${bob.username}/followers`],
    });
  });

  it('renders a reply to a remote status with its id, and a reply to a deleted local one with the id it had', async () => {
    const remoteParent = await aStoredStatus(follower.account, { uri: 'https://one.example/notes/1', url: 'https://one.example/@x/1' });
    const toRemote = await aStoredStatus(bob, { inReplyToId: remoteParent.id, inReplyToAccountId: follower.account.id });
    expect((await renderNote(toRemote, bob)).inReplyTo).toBe('https://one.example/notes/1');
    const goneId = newId();
    const toGone = await aStoredStatus(bob, { inReplyToId: goneId, inReplyToAccountId: carol.id });
    expect((await renderNote(toGone, bob)).inReplyTo).toBe(`${BASE}/users/${carol.username}/statuses/${goneId}`);
  });
});

describe('collections', () => {
  let dana: Account;
  let pub: Status[];
  let hidden: Status[];
  let reblog: Status;
  let original: Status;
  let remoteFan: RemoteActor;
  let localFan: Account;
  let other: Account;

  const outboxPath = () => `/users/${dana.username}/outbox`;
  const outboxPage = (query: string) => get(outbox, outboxPath(), { username: dana.username }, {}, query);

  beforeAll(async () => {
    dana = await aBareAccount();
    other = await aBareAccount();
    original = await aPostedStatus(other);
    pub = [];
    for (let i = 0; i < 21; i++) pub.push(await aPostedStatus(dana));
    hidden = [
      await aPostedStatus(dana, { visibility: 'unlisted' }),
      await aPostedStatus(dana, { visibility: 'private' }),
      await aPostedStatus(dana, { visibility: 'direct' }),
    ];
    reblog = await aPostedReblog(dana, original);
    await updateAccount(dana.id, { statusesCount: 25, followersCount: 2, followingCount: 1 });
    remoteFan = await aRemoteActor('fans.example');
    localFan = await aBareAccount();
    await aFollow(remoteFan.account, dana);
    await aFollow(localFan, dana);
    await aFollow(dana, remoteFan.account);
  });

  it('outlines the outbox with its count and where its pages start', async () => {
    const res = await get(outbox, outboxPath(), { username: dana.username });
    expectActivityJson(res);
    expect(res.body).toMatchObject({
      id: `${BASE}${outboxPath()}`,
      type: 'OrderedCollection',
      totalItems: 25,
      first: `${BASE}${outboxPath()}?page=true`,
      last: `${BASE}${outboxPath()}?min_id=0&page=true`,
    });
  });

  it('pages the outbox: Creates of public statuses and the Announce of a public reblog, newest first, 20 a page', async () => {
    const first = await outboxPage('page=true');
    expectActivityJson(first);
    expect(first.body).toMatchObject({ type: 'OrderedCollectionPage', partOf: `${BASE}${outboxPath()}`, id: `${BASE}${outboxPath()}?page=true` });
    const items = first.body.orderedItems as Record<string, any>[];
    expect(items).toHaveLength(20);
    expect(items[0]).toMatchObject({
      type: 'Announce',
      id: `${BASE}/users/${dana.username}/statuses/${reblog.id}/activity`,
      object: `${BASE}/users/${other.username}/statuses/${original.id}`,
    });
    expect(items.slice(1).every((item) => item.type === 'Create' && item.object.type === 'Note' && item.to[0] === AS_PUBLIC)).toBe(true);
    expect(items.slice(1).map((item) => item.object.id)).toEqual(pub.slice(-19).reverse().map((s) => `${BASE}/users/${dana.username}/statuses/${s.id}`));
    const shown = JSON.stringify(first.body);
    for (const s of hidden) expect(shown).not.toContain(s.id);

    // `next` reads on from the oldest of the page; the last page has nothing more.
    const next = new URL(first.body.next);
    expect(next.searchParams.get('page')).toBe('true');
    const second = await outboxPage(next.search.slice(1));
    const rest = second.body.orderedItems as Record<string, any>[];
    expect(rest.map((item) => item.object.id)).toEqual(pub.slice(0, 2).reverse().map((s) => `${BASE}/users/${dana.username}/statuses/${s.id}`));
    const last = await outboxPage(new URL(second.body.next).search.slice(1));
    expect(last.body.orderedItems).toEqual([]);
    expect(last.body).not.toHaveProperty('next');

    // `prev` of the second page leads back to newer items.
    const back = await outboxPage(new URL(second.body.prev).search.slice(1));
    expect((back.body.orderedItems as Record<string, any>[]).map((item) => item.id)).toContain(items.at(-1)!.id);
  });

  it('lists followers and following by their actor URIs', async () => {
    const outline = await get(followers, `/users/${dana.username}/followers`, { username: dana.username });
    expectActivityJson(outline);
    expect(outline.body).toMatchObject({ type: 'OrderedCollection', totalItems: 2, first: `${BASE}/users/${dana.username}/followers?page=true` });
    const page = await get(followers, `/users/${dana.username}/followers`, { username: dana.username }, {}, 'page=true');
    expect(page.body).toMatchObject({ type: 'OrderedCollectionPage', partOf: `${BASE}/users/${dana.username}/followers` });
    expect([...page.body.orderedItems].sort()).toEqual([remoteFan.account.uri, `${BASE}/users/${localFan.username}`].sort());

    const followed = await get(following, `/users/${dana.username}/following`, { username: dana.username }, {}, 'page=1');
    expect(followed.body.orderedItems).toEqual([remoteFan.account.uri]);
    const followedOutline = await get(following, `/users/${dana.username}/following`, { username: dana.username });
    expect(followedOutline.body).toMatchObject({ type: 'OrderedCollection', totalItems: 1 });
  });

  it('serves the pinned statuses anyone may read as Notes', async () => {
    await addPin(dana.id, pub[0]!.id);
    await addPin(dana.id, hidden[1]!.id);
    const res = await get(featured, `/users/${dana.username}/collections/featured`, { username: dana.username });
    expectActivityJson(res);
    expect(res.body).toMatchObject({
      id: `${BASE}/users/${dana.username}/collections/featured`,
      type: 'OrderedCollection',
      totalItems: 1,
      orderedItems: [expect.objectContaining({ type: 'Note', id: `${BASE}/users/${dana.username}/statuses/${pub[0]!.id}` })],
    });
  });

  it.each([
    ['outbox', outbox, 'outbox'],
    ['followers', followers, 'followers'],
    ['following', following, 'following'],
    ['featured', featured, 'collections/featured'],
  ])('answers 404 for the %s of an unknown user', async (_what, handler, tail) => {
    expectNotFound(await get(handler, `/users/nobody_here_at_all/${tail}`, { username: 'nobody_here_at_all' }));
  });

  it('answers 422 for a bad page bound', async () => {
    const res = await outboxPage('page=true&max_id=abc');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('the profile URLs /@:username and /@:username/:id', () => {
  let erin: Account;
  let shown: Status;
  let unlisted: Status;
  let secret: Status;

  beforeAll(async () => {
    erin = (await updateAccount((await aBareAccount()).id, {
      displayName: '<script>alert(1)</script> Erin',
      note: 'bio',
      noteHtml: '<p>bio &amp; more</p>',
      fields: [{ name: '<b>Web</b>', value: 'x' }],
      fieldsHtml: [{ name: '<b>Web</b>', value: 'x', verifiedAt: null }],
    }))!;
    shown = await aPostedStatus(erin, { spoilerText: '<i>careful</i>', contentHtml: '<p>public words</p>' });
    unlisted = await aPostedStatus(erin, { visibility: 'unlisted', contentHtml: '<p>unlisted words</p>' });
    secret = await aPostedStatus(erin, { visibility: 'private', contentHtml: '<p>secret words</p>' });
  });

  const page = (accept?: string) => call(profile, { path: `/@${erin.username}`, pathParameters: { handle: `@${erin.username}` }, headers: accept ? { accept } : {} });

  it('answers a browser with a plain page, everything the user typed escaped, public posts only', async () => {
    const res = await page(BROWSER_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Erin');
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain(`@${erin.username}@social.example`);
    expect(res.text).toContain('<p>bio &amp; more</p>');
    expect(res.text).toContain('&lt;b&gt;Web&lt;/b&gt;');
    expect(res.text).toContain('<p>public words</p>');
    expect(res.text).toContain('&lt;i&gt;careful&lt;/i&gt;');
    expect(res.text).toContain(`href="${BASE}/@${erin.username}/${shown.id}"`);
    expect(res.text).toContain(`<link rel="alternate" type="application/activity+json" href="${BASE}/users/${erin.username}">`);
    expect(res.text).not.toContain('unlisted words');
    expect(res.text).not.toContain('secret words');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('answers with no Accept header with the page too', async () => {
    expect((await page()).headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it.each([[AP_ACCEPT], [LD_ACCEPT], ['application/activity+json, text/html;q=0.5']])('serves the Person to Accept: %s', async (accept) => {
    const res = await page(accept);
    expectActivityJson(res);
    expect(res.body).toMatchObject({ id: `${BASE}/users/${erin.username}`, type: 'Person' });
  });

  it('answers a path that is no profile URL as the catch-all does, and an unknown user with "Record not found"', async () => {
    for (const [handler, path, params] of [
      [profile, '/favicon.ico', { handle: 'favicon.ico' }],
      [profile, '/@', { handle: '@' }],
      [profileStatus, '/api/v1', { handle: 'api', id: 'v1' }],
    ] as const) {
      const res = await call(handler, { path, pathParameters: params });
      expect([res.status, res.body]).toEqual([404, { error: 'Not found' }]);
    }
    expectNotFound(await call(profile, { path: '/@nobody_here_at_all', pathParameters: { handle: '@nobody_here_at_all' } }));
  });

  const statusPageOf = (s: Status, accept: string, headers: Record<string, string> = {}) =>
    call(profileStatus, { path: `/@${erin.username}/${s.id}`, pathParameters: { handle: `@${erin.username}`, id: s.id }, headers: { accept, ...headers } });

  it('serves a status page to a browser, and its Note to a server', async () => {
    const html = await statusPageOf(shown, BROWSER_ACCEPT);
    expect(html.status).toBe(200);
    expect(html.text).toContain('<p>public words</p>');
    expect(html.text).toContain('&lt;script&gt;');
    expect((await statusPageOf(unlisted, BROWSER_ACCEPT)).text).toContain('<p>unlisted words</p>');
    const note = await statusPageOf(shown, AP_ACCEPT);
    expectActivityJson(note);
    expect(note.body).toMatchObject({ type: 'Note', id: `${BASE}/users/${erin.username}/statuses/${shown.id}` });
  });

  it('answers 404 for a followers-only status, as a page and unsigned as a Note', async () => {
    expectNotFound(await statusPageOf(secret, BROWSER_ACCEPT));
    expectNotFound(await statusPageOf(secret, AP_ACCEPT));
  });

  it('serves a followers-only Note at the profile URL to a signed request of a follower', async () => {
    const fan = await aRemoteActor('pages.example');
    await aFollow(fan.account, erin);
    const path = `/@${erin.username}/${secret.id}`;
    const res = await statusPageOf(secret, AP_ACCEPT, signedBy(fan, path));
    expectActivityJson(res);
    expect(res.body.content).toBe('<p>secret words</p>');
  });
});
