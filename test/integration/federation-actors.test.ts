// Remote actors (lib/federation/actors.ts): actor documents as real peers send them
// (the recorded Fedify actors, and the variants other servers use) parse into remote
// accounts with sanitised HTML; one is stored once however many workers save it at
// once; fetched on first need from a server on loopback, refreshed when a day old
// (a failed refresh keeps it), and its key found for verifyRequest, rotation included.
import { readFileSync } from 'node:fs';
import { accountByActorUri, InvalidActor, lookupKey, parseActor, REFRESH_AFTER_MS, resolveAcct, saveActorDocument } from '../../lib/federation/actors';
import { signRequest, verifyRequest } from '../../lib/federation/signatures';
import { accountById } from '../../lib/db/accounts';
import { remoteAccountByAcct, remoteAccountByUri, updateRemoteAccount } from '../../lib/db/remote';
import { renderAccount } from '../../lib/render/account';
import { aUser } from '../support/factories';
import { scanTable, storedItemCount } from '../support/items';
import { aRemoteActor, headersOf, remoteServer, rsaPair, serveWebfinger, type RemoteServer } from '../support/remote-server';

const fixture = <T = Record<string, unknown>>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/activitypub/${name}`, import.meta.url), 'utf8'));

const alice = fixture<Record<string, unknown> & { id: string; publicKey: { id: string; publicKeyPem: string } }>('actor-alice.json');

/** How many items of the table start with `prefix`. */
async function itemsStartingWith(prefix: string): Promise<number> {
  let count = 0;
  await scanTable({ FilterExpression: 'begins_with(PK, :p)', ExpressionAttributeValues: { ':p': prefix }, Select: 'COUNT' }, (out) => {
    count += out.Count ?? 0;
  });
  return count;
}

describe('reading actor documents', () => {
  it('reads the recorded Fedify actors', () => {
    const parsed = parseActor(alice);
    expect(parsed).toMatchObject({
      uri: 'http://hollo-a.test/@alice',
      username: 'alice',
      domain: 'hollo-a.test',
      displayName: 'alice',
      noteHtml: '<p>Hollo peer account alice</p>',
      url: 'http://hollo-a.test/@alice',
      actorType: 'Person',
      locked: false,
      bot: false,
      discoverable: true,
      inboxUrl: 'http://hollo-a.test/@alice/inbox',
      sharedInboxUrl: 'http://hollo-a.test/inbox',
      outboxUrl: 'http://hollo-a.test/@alice/outbox',
      followersUrl: 'http://hollo-a.test/@alice/followers',
      followingUrl: 'http://hollo-a.test/@alice/following',
      featuredUrl: 'http://hollo-a.test/@alice/pinned',
      publicKeyId: 'http://hollo-a.test/@alice#main-key',
      publicKeyPem: alice.publicKey.publicKeyPem,
      avatarRemoteUrl: null,
      published: '2026-11-24T00:11:47.360Z',
    });
    expect(parseActor(fixture('actor-bob.json'))).toMatchObject({ uri: 'http://hollo-b.test/@bob', username: 'bob', domain: 'hollo-b.test' });
  });

  const base = aRemoteActor('https://remote.example', 'carol').doc;
  const { publicKeyPem } = rsaPair(0);

  it.each([
    ['url as a Link object', { url: { type: 'Link', href: 'https://remote.example/@carol', mediaType: 'text/html' } }, { url: 'https://remote.example/@carol' }],
    ['url as an array', { url: ['https://remote.example/@carol', { type: 'Link', href: 'https://other/@c' }] }, { url: 'https://remote.example/@carol' }],
    ['no url', { url: undefined }, { url: null }],
    ['icon and image as arrays of Images with Link urls', {
      icon: [{ type: 'Image', url: { type: 'Link', href: 'https://remote.example/a.png' } }],
      image: [{ type: 'Image', url: 'https://remote.example/h.png' }],
    }, { avatarRemoteUrl: 'https://remote.example/a.png', headerRemoteUrl: 'https://remote.example/h.png' }],
    ['icon as a bare URL', { icon: 'https://remote.example/b.png' }, { avatarRemoteUrl: 'https://remote.example/b.png' }],
    ['a Service', { type: 'Service' }, { actorType: 'Service', bot: true }],
    ['an Application in a type array', { type: ['Application'] }, { actorType: 'Application', bot: true }],
    ['a Group', { type: 'Group' }, { actorType: 'Group', bot: false }],
    ['an Organization', { type: 'Organization' }, { actorType: 'Organization' }],
    ['locked', { manuallyApprovesFollowers: true }, { locked: true }],
    ['no endpoints, links as objects', { endpoints: undefined, inbox: { id: 'https://remote.example/users/carol/inbox' } }, { sharedInboxUrl: null, inboxUrl: 'https://remote.example/users/carol/inbox' }],
    ['no name, a nameMap', { name: undefined, nameMap: { en: 'Carol C.' } }, { displayName: 'Carol C.' }],
    ['a name with control characters', { name: 'Ca\u0000rol\n' }, { displayName: 'Carol' }],
    ['no summary', { summary: undefined }, { noteHtml: '' }],
    ['publicKey as an array: the one the signature names wins', {
      publicKey: [
        { id: 'https://remote.example/users/carol#other-key', owner: 'https://remote.example/users/carol', publicKeyPem },
        { id: 'https://remote.example/users/carol#main-key', owner: 'https://remote.example/users/carol', publicKeyPem },
      ],
    }, { publicKeyId: 'https://remote.example/users/carol#main-key' }],
    ['a key owned by someone else', { publicKey: { id: 'https://remote.example/users/carol#main-key', owner: 'https://remote.example/users/dave', publicKeyPem } }, { publicKeyId: null, publicKeyPem: null }],
    ['a key on another origin', { publicKey: { id: 'https://evil.example/keys/1', owner: 'https://remote.example/users/carol', publicKeyPem } }, { publicKeyId: null }],
    // Mastodon 4.4-4.6's profile terms: read when sent, Mastodon's defaults when not.
    ['no profile terms', {}, { indexable: false, attributionDomains: [], avatarDescription: '', headerDescription: '', showFeatured: true, showMedia: true, showMediaReplies: true }],
    [
      'the profile terms of Mastodon 4.6',
      {
        indexable: true,
        attributionDomains: ['News.Example', 'blog.example', 'news.example', 'not a host', 42],
        showFeatured: false,
        showMedia: false,
        showRepliesInMedia: false,
        icon: { type: 'Image', url: 'https://remote.example/a.png', name: 'A red\u0000 fox' },
        image: [{ type: 'Image', url: 'https://remote.example/h.png', summary: 'Hills' }],
      },
      { indexable: true, attributionDomains: ['news.example', 'blog.example'], showFeatured: false, showMedia: false, showMediaReplies: false, avatarDescription: 'A red fox', headerDescription: 'Hills' },
    ],
    ['an avatar description past its bound, cut there', { icon: { type: 'Image', url: 'https://remote.example/a.png', name: 'x'.repeat(5000) } }, { avatarDescription: expect.stringMatching(/^x{1400,1500}…?$/) }],
    ['more attribution domains than kept', { attributionDomains: Array.from({ length: 30 }, (_, i) => `d${i}.example`) }, { attributionDomains: Array.from({ length: 10 }, (_, i) => `d${i}.example`) }],
    ['a key that is not a key', { publicKey: { id: 'https://remote.example/users/carol#main-key', publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' } }, { publicKeyId: null }],
  ])('reads %s', (_what, overrides, expected) => {
    const parsed = parseActor({ ...base, ...overrides }, { keyId: 'https://remote.example/users/carol#main-key' });
    expect(parsed).toMatchObject(expected);
  });

  it('sanitises the summary and field values to the tags Mastodon keeps', () => {
    const parsed = parseActor({
      ...base,
      summary: '<h1>Hi</h1><script>alert(1)</script><p onclick="x()" style="color:red">I <b>am</b> <a href="javascript:alert(1)">x</a> <a href="https://ok.example/" target="_blank" class="mention evil">ok</a><img src="https://t.example/p.png"><iframe src="https://x"></iframe></p>',
      attachment: [
        { type: 'PropertyValue', name: 'Site', value: '<a href="https://carol.example" rel="me"><span class="invisible">https://</span>carol.example</a><script>x</script>' },
        { type: 'PropertyValue', name: 'Pronouns', value: 'she/her & <i>they</i>' },
        { type: 'IdentityProof', name: 'x', signatureValue: 'y' },
        { type: 'PropertyValue', name: 'Broken' },
      ],
    });
    expect(parsed.noteHtml).toBe('<p>Hi</p><p>I <b>am</b> <a rel="nofollow noopener noreferrer">x</a> <a href="https://ok.example/" class="mention" rel="nofollow noopener noreferrer">ok</a></p>');
    expect(parsed.fieldsHtml).toEqual([
      { name: 'Site', value: '<a href="https://carol.example" rel="nofollow noopener noreferrer"><span class="invisible">https://</span>carol.example</a>', verifiedAt: null },
      { name: 'Pronouns', value: 'she/her &amp; <i>they</i>', verifiedAt: null },
    ]);
    expect(parsed.fields).toEqual([
      { name: 'Site', value: 'https://carol.example' },
      { name: 'Pronouns', value: 'she/her & they' },
    ]);
  });

  it.each([
    ['not an actor', { type: 'Note' }, /is not an actor/],
    ['no type', { type: undefined }, /is not an actor/],
    ['an id that is not a URL', { id: 'urn:uuid:1' }, /id is not an http\(s\) URL/],
    ['an id on our own server', { id: 'https://social.example/users/carol' }, /one of our own URLs/],
    ['no preferredUsername', { preferredUsername: undefined }, /preferredUsername/],
    ['a preferredUsername with an @', { preferredUsername: 'carol@else.where' }, /preferredUsername/],
  ])('refuses %s', (_what, overrides, reason) => {
    expect(() => parseActor({ ...base, ...overrides })).toThrow(InvalidActor);
    expect(() => parseActor({ ...base, ...overrides })).toThrow(reason);
  });
});

describe('storing actors', () => {
  it('stores a remote account with no login state, rendered as a Mastodon account', async () => {
    const { doc } = aRemoteActor('https://remote.example', `dora${Date.now()}`, { type: 'Group' });
    const account = (await saveActorDocument(doc))!;
    expect(account).toMatchObject({ domain: 'remote.example', uri: doc.id, confirmedAt: null, admin: false, lastSignInAt: null });
    expect(account.email).toBeUndefined();
    expect(account.passwordHash).toBeUndefined();
    expect(await remoteAccountByUri(doc.id)).toEqual(account);
    expect(await remoteAccountByAcct(String(doc.preferredUsername).toUpperCase(), 'REMOTE.example')).toEqual(account);
    expect(renderAccount(account)).toMatchObject({
      acct: `${doc.preferredUsername}@remote.example`,
      url: `https://remote.example/@${doc.preferredUsername}`,
      avatar: `https://remote.example/avatars/${doc.preferredUsername}.png`,
      note: `<p>I am ${doc.preferredUsername}</p>`,
      group: true,
      created_at: '2024-01-02T00:00:00.000Z',
    });
  });

  it('stores an actor once when many save it at the same moment', async () => {
    const { doc } = aRemoteActor('https://burst.example', 'eve');
    const before = await storedItemCount();
    const saved = await Promise.all(Array.from({ length: 8 }, () => saveActorDocument(doc)));
    expect(new Set(saved.map((a) => a?.id)).size).toBe(1);
    expect(saved[0]).toBeDefined();
    // The account, its actor URI and handle pointers; its entries in the domain's account index and the peers list;
    // the actor being discoverable, its two profile-directory entries (lib/db/directory.ts); and its entries in the
    // moderators' account list, `all` and `remote` (lib/db/admin_accounts.ts).
    expect(await storedItemCount()).toBe(before + 9);
    expect(await itemsStartingWith('ACTOR#https://burst.example/')).toBe(1);
    expect(await itemsStartingWith('ACCT#eve@burst.example')).toBe(1);
  });

  it('updates the stored account from a newer document, keeping its id and handle', async () => {
    const { doc } = aRemoteActor('https://update.example', 'fay');
    const first = (await saveActorDocument(doc))!;
    const second = (await saveActorDocument({ ...doc, name: 'Fay Renamed', preferredUsername: 'fay2', icon: undefined, manuallyApprovesFollowers: true }))!;
    expect(second).toMatchObject({ id: first.id, username: 'fay', displayName: 'Fay Renamed', avatarRemoteUrl: null, locked: true });
    expect((await accountById(first.id))!.displayName).toBe('Fay Renamed');
  });

  it('never rewrites a local account as if it were a remote one', async () => {
    const { account } = await aUser({ username: 'localonly' });
    expect(await updateRemoteAccount(account.id, { displayName: 'Hijacked', publicKeyPem: 'x' })).toBeUndefined();
    expect(await accountById(account.id)).toMatchObject({ displayName: '', publicKeyPem: null, domain: null });
  });

  it('keeps the handle of the actor that has it: another id claiming the same user@domain is not stored', async () => {
    const { doc } = aRemoteActor('https://handles.example', 'hugo');
    const first = (await saveActorDocument(doc))!;
    const before = await storedItemCount();
    expect(await saveActorDocument({ ...doc, id: 'https://handles.example/users/hugo-2' })).toBeUndefined();
    expect(await storedItemCount()).toBe(before);
    expect((await remoteAccountByAcct('hugo', 'handles.example'))!.id).toBe(first.id);
  });

  it('writes nothing for a document from another origin than it was fetched from, or that is no actor', async () => {
    const { doc } = aRemoteActor('https://claimed.example', 'gus');
    const before = await storedItemCount();
    expect(await saveActorDocument(doc, { fetchedFrom: 'https://attacker.example/users/gus' })).toBeUndefined();
    expect(await saveActorDocument({ ...doc, type: 'Note' })).toBeUndefined();
    expect(await saveActorDocument({ ...doc, id: 'https://social.example/users/gus' })).toBeUndefined();
    expect(await storedItemCount()).toBe(before);
  });
});

describe('fetching, refreshing and keys', () => {
  let server: RemoteServer;
  beforeEach(async () => {
    process.env.STAGE = 'local';
    process.env.FEDERATION_ALLOW_PRIVATE = '1';
    server = await remoteServer();
  });
  afterEach(async () => {
    process.env.STAGE = 'test';
    delete process.env.FEDERATION_ALLOW_PRIVATE;
    await server.close();
  });

  /** Moves an account's fetchedAt into the past, as if it had been fetched `ms` ago. */
  const age = (id: string, ms: number) => updateRemoteAccount(id, { fetchedAt: new Date(Date.now() - ms).toISOString() });

  it('fetches an unknown actor once and answers the stored one after that', async () => {
    const { doc } = aRemoteActor(server.origin, 'hal');
    server.serve(doc);
    const account = (await accountByActorUri(doc.id))!;
    expect(account).toMatchObject({ uri: doc.id, domain: server.host, username: 'hal' });
    expect((await accountByActorUri(doc.id))!.id).toBe(account.id);
    expect(server.received).toHaveLength(1);
    expect(await accountByActorUri(`${server.origin}/users/nobody`, { fetch: false })).toBeUndefined();
    expect(server.received).toHaveLength(1);
  });

  it('fetches a stored actor again once it is a day old; a failed refresh keeps the stored one', async () => {
    const { doc } = aRemoteActor(server.origin, 'ida');
    server.serve(doc);
    const account = (await accountByActorUri(doc.id))!;
    server.serve({ ...doc, name: 'Ida Fresh' });
    await age(account.id, REFRESH_AFTER_MS - 60_000);
    expect((await accountByActorUri(doc.id))!.displayName).toBe('ida remote');
    await age(account.id, REFRESH_AFTER_MS + 60_000);
    const refreshed = (await accountByActorUri(doc.id))!;
    expect(refreshed.displayName).toBe('Ida Fresh');
    expect(Date.now() - Date.parse(refreshed.fetchedAt!)).toBeLessThan(60_000);

    server.route('GET', '/users/ida', { status: 500, body: '' });
    await age(account.id, REFRESH_AFTER_MS + 60_000);
    expect(await accountByActorUri(doc.id)).toMatchObject({ id: account.id, displayName: 'Ida Fresh' });
    expect(server.received).toHaveLength(3);
  });

  it('answers a local account for our own actor URLs, without fetching', async () => {
    const { account } = await aUser();
    expect((await accountByActorUri(`https://social.example/users/${account.username}`))!.id).toBe(account.id);
    expect(await accountByActorUri('https://social.example/users/nobody-here')).toBeUndefined();
  });

  it('an actor that is gone is no account; a server that cannot be asked is an error to retry', async () => {
    server.route('GET', '/users/gone', { status: 410, body: '' });
    expect(await accountByActorUri(`${server.origin}/users/gone`)).toBeUndefined();
    server.route('GET', '/users/broken', { status: 503, body: '' });
    await expect(accountByActorUri(`${server.origin}/users/broken`)).rejects.toThrow('answered 503');
  });

  it('resolves user@host through WebFinger and stores the actor', async () => {
    const { doc } = aRemoteActor(server.origin, 'jon');
    server.serve(doc);
    serveWebfinger(server, { jon: doc.id });
    const account = (await resolveAcct('jon', server.host))!;
    expect(account).toMatchObject({ uri: doc.id, username: 'jon', domain: server.host });
    expect(server.received.map((r) => r.path)).toEqual([`/.well-known/webfinger?resource=${encodeURIComponent(`acct:jon@${server.host}`)}`, '/users/jon']);
    expect((await resolveAcct('JON', server.host))!.id).toBe(account.id);
    expect(server.received).toHaveLength(2);
    expect(await resolveAcct('nobody', server.host)).toBeUndefined();
  });

  it('finds the key of a signed request, fetching its actor once, and verifies the request', async () => {
    const actor = aRemoteActor(server.origin, 'kim');
    server.serve(actor.doc);
    const url = 'https://social.example/inbox';
    const body = JSON.stringify({ id: `${server.origin}/activities/1`, type: 'Follow', actor: actor.doc.id, object: 'https://social.example/users/x' });
    const headers = signRequest({ method: 'POST', url, body, headers: { 'content-type': 'application/activity+json' } }, actor);
    const verified = await verifyRequest({ method: 'POST', path: '/inbox', headers, body }, lookupKey);
    expect(verified).toEqual({ ok: true, keyId: actor.keyId, ownerUri: actor.doc.id });
    expect(await lookupKey(actor.keyId, { refresh: false })).toEqual({ publicKeyPem: actor.publicKeyPem, ownerUri: actor.doc.id });
    expect(server.received).toHaveLength(1);
    // A refresh just after a fetch is not repeated (a stream of bad signatures must not make us fetch each time).
    await lookupKey(actor.keyId, { refresh: true });
    expect(server.received).toHaveLength(1);
  });

  it('follows a key rotation: a signature by the new key verifies after one refetch', async () => {
    const before = aRemoteActor(server.origin, 'lee', {}, 0);
    server.serve(before.doc);
    const account = (await accountByActorUri(before.doc.id))!;
    await age(account.id, 5 * 60_000);
    const after = aRemoteActor(server.origin, 'lee', {}, 1);
    server.serve(after.doc);
    const headers = signRequest({ method: 'GET', url: 'https://social.example/users/x' }, after);
    expect(await verifyRequest({ method: 'GET', path: '/users/x', headers }, lookupKey)).toMatchObject({ ok: true, ownerUri: before.doc.id });
    expect((await remoteAccountByUri(before.doc.id))!.publicKeyPem).toBe(after.publicKeyPem);
    expect(server.received).toHaveLength(2);
  });

  it('finds a key published as a document of its own (GoToSocial-style keyId)', async () => {
    const actor = aRemoteActor(server.origin, 'mo');
    const keyId = `${actor.doc.id}/main-key`;
    const doc = { ...actor.doc, publicKey: { id: keyId, owner: actor.doc.id, publicKeyPem: actor.publicKeyPem } };
    server.serve(doc);
    server.route('GET', '/users/mo/main-key', { body: { id: keyId, type: 'CryptographicKey', owner: actor.doc.id, publicKeyPem: actor.publicKeyPem } });
    expect(await lookupKey(keyId, { refresh: false })).toEqual({ publicKeyPem: actor.publicKeyPem, ownerUri: actor.doc.id });
    expect(await lookupKey(keyId, { refresh: false })).toEqual({ publicKeyPem: actor.publicKeyPem, ownerUri: actor.doc.id });
    expect(server.received.map((r) => r.path)).toEqual(['/users/mo/main-key', '/users/mo']);
  });

  it('answers no key for an unknown or unreachable actor, or a key its actor does not have', async () => {
    expect(await lookupKey(`${server.origin}/users/nobody#main-key`, { refresh: false })).toBeUndefined();
    const actor = aRemoteActor(server.origin, 'ned');
    server.serve(actor.doc);
    expect(await lookupKey(`${actor.doc.id}#another-key`, { refresh: false })).toBeUndefined();
    expect(await lookupKey('http://169.254.169.254/latest#main-key', { refresh: false })).toBeUndefined();
    expect(await lookupKey('https://social.example/users/x#main-key', { refresh: false })).toBeUndefined();
  });

  it('verifies the recorded Fedify Follow with the stored actor (clock frozen to its Date)', async () => {
    await saveActorDocument(alice);
    const follow = fixture<{ method: string; url: string; headers: Record<string, string>; rawBody: string }>('outgoing-Follow.json');
    const verified = await verifyRequest(
      { method: follow.method, path: follow.url, headers: follow.headers, body: follow.rawBody },
      lookupKey,
      new Date(follow.headers.date!),
    );
    expect(verified).toEqual({ ok: true, keyId: alice.publicKey.id, ownerUri: alice.id });
  });
});

describe('rendering remote accounts', () => {
  it('shows the remote avatar and header unless an image was stored here, and the actor URI when no url', async () => {
    const { doc } = aRemoteActor('https://render.example', 'oz', { url: undefined, image: { type: 'Image', url: 'https://render.example/h.png' } });
    const account = (await saveActorDocument(doc))!;
    const rendered = renderAccount(account);
    expect(rendered).toMatchObject({ url: doc.id, avatar: 'https://render.example/avatars/oz.png', header: 'https://render.example/h.png', acct: 'oz@render.example' });
    expect(renderAccount({ ...account, avatarRemoteUrl: null }).avatar).toMatch(/missing\.png$/);
  });
});
