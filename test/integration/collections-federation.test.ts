// Collections between servers (Mastodon 4.6): what we serve (each collection as a FeaturedCollection, the actor's
// featuredCollections, the Person's link to it and its canFeature policy, nothing to a blocked signer) and what
// the collection routes send to the owner's followers' servers (Add, Update, Remove of the collection; Add and
// Remove of an item), through the HTTP handlers against the emulators, deliveries collected from the queue.
import { handler as actorHandler } from '../../functions/activitypub/actor';
import { handler as collectionDoc } from '../../functions/activitypub/collection';
import { handler as featuredCollectionsDoc } from '../../functions/activitypub/featured_collections';
import { handler as accountCollections } from '../../functions/collections/account_collections';
import { handler as addItem } from '../../functions/collections/add_item';
import { handler as createHandler } from '../../functions/collections/create';
import { handler as deleteHandler } from '../../functions/collections/delete';
import { handler as removeItem } from '../../functions/collections/remove_item';
import { handler as showHandler } from '../../functions/collections/show';
import { handler as updateHandler } from '../../functions/collections/update';
import { updateAccount, type Account } from '../../lib/db/accounts';
import { createFollow } from '../../lib/db/follows';
import { blockRecord } from '../../lib/db/blocks';
import { putItem } from '../../lib/db/table';
import { signRequest } from '../../lib/federation/signatures';
import { newId } from '../../lib/ids';
import { registerInlineWorker } from '../../lib/queue';
import { queueMessages, type QueueName } from '../../lib/queue/messages';
import { activity, collectDeliveries, receive } from '../support/activities';
import { aRemoteAccount, aUser, type UserFixture } from '../support/factories';
import { call, type Answer } from '../support/http';

for (const queue of Object.keys(queueMessages) as QueueName[]) registerInlineWorker(queue, async () => ({ batchItemFailures: [] }));
const delivered = collectDeliveries();

const BASE = 'https://social.example';
const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

async function someone(discoverable = true): Promise<UserFixture> {
  const user = await aUser();
  await updateAccount(user.account.id, { discoverable, locked: false });
  return user;
}

const ok = (res: Answer) => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text}`);
  return res.body;
};
const createRes = (user: UserFixture, json: Record<string, unknown>) => call(createHandler, { method: 'POST', path: '/api/v1/collections', json, token: user.token });
/** The created collection (the answer is a WrappedCollection). */
const create = async (user: UserFixture, json: Record<string, unknown>) => ({ status: 200, body: ok(await createRes(user, json)).collection }) as Answer;
const valid = (extra: Record<string, unknown> = {}) => ({ name: 'Nice people', description: 'Worth following', sensitive: false, discoverable: true, ...extra });

type Remote = { account: Account; keyId: string; privateKeyPem: string };
async function aRemote(domain: string): Promise<Remote> {
  const { account, signer } = await aRemoteAccount({ domain, username: `peer${newId().slice(-8)}` });
  return { account, ...signer };
}
/** `follower` (remote) follows `followed`, counted in its inbox as the follow transactions count it. */
const remoteFollows = (follower: Account, followed: Account) =>
  createFollow({ id: newId(), followerId: follower.id, followedId: followed.id, showReblogs: true, notify: false, createdAt: new Date().toISOString() }, { followerInbox: follower.sharedInboxUrl ?? follower.inboxUrl! });

const signedBy = (by: Remote, path: string): Record<string, string> => signRequest({ method: 'GET', url: `${BASE}${path}` }, { keyId: by.keyId, privateKeyPem: by.privateKeyPem });
const getDoc = (handler: Parameters<typeof call>[0], path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  call(handler, { path, pathParameters: params, headers: { accept: 'application/activity+json', ...headers } });

describe('collections served to other servers', () => {
  let owner: UserFixture;
  let featured: UserFixture;
  let collection: Record<string, any>;
  beforeAll(async () => {
    owner = await someone();
    featured = await someone();
    collection = ok(await create(owner, valid({ language: 'en', tag_name: 'Cats', account_ids: [featured.account.id] })));
  });

  it('serves a collection as a FeaturedCollection with its accepted items as FeaturedItems, at the uri the API gives', async () => {
    const path = `/users/${owner.account.username}/collections/${collection.id}`;
    expect(collection.uri).toBe(`${BASE}${path}`);
    const res = await getDoc(collectionDoc, path, { username: owner.account.username, id: collection.id });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/activity+json; charset=utf-8');
    expect(res.body).toMatchObject({
      id: `${BASE}${path}`,
      type: 'FeaturedCollection',
      name: 'Nice people',
      summaryMap: { en: 'Worth following' },
      attributedTo: `${BASE}/users/${owner.account.username}`,
      sensitive: false,
      discoverable: true,
      totalItems: 1,
      topic: { type: 'Hashtag', href: `${BASE}/tags/cats`, name: '#Cats' },
      orderedItems: [
        { id: `${BASE}${path}/items/${collection.items[0].id}`, type: 'FeaturedItem', featuredObject: `${BASE}/users/${featured.account.username}`, featuredObjectType: 'Person' },
      ],
    });
    expect(res.body.summary).toBeUndefined();
    expect(res.body['@context'][2]).toMatchObject({ FeaturedCollection: 'toot:FeaturedCollection', featuredObject: { '@type': '@id' } });
  });

  it('answers 404 for an unknown id, another owner\'s collection, and an unknown owner', async () => {
    const other = await someone();
    const theirs = ok(await create(other, valid()));
    for (const [username, id] of [[owner.account.username, '123456'], [owner.account.username, theirs.id], ['nobody_here', collection.id], [owner.account.username, 'abc']]) {
      const res = await getDoc(collectionDoc, `/users/${username}/collections/${id}`, { username: username!, id: id! });
      expect(res.status).toBe(404);
    }
  });

  it('lists the owner\'s collections from its Person, the ones not discoverable included (each says so)', async () => {
    const hidden = ok(await create(owner, valid({ name: 'Quiet', discoverable: false })));
    const person = await getDoc(actorHandler, `/users/${owner.account.username}`, { username: owner.account.username });
    const listUrl = `${BASE}/users/${owner.account.username}/featured_collections`;
    expect(person.body.featuredCollections).toBe(listUrl);
    expect(person.body.interactionPolicy).toEqual({ canFeature: { automaticApproval: [AS_PUBLIC] } });
    const res = await getDoc(featuredCollectionsDoc, `/users/${owner.account.username}/featured_collections`, { username: owner.account.username });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: listUrl, type: 'Collection', totalItems: 2 });
    expect(res.body.items.map((c: { id: string; discoverable: boolean }) => [c.id, c.discoverable])).toEqual([
      [`${BASE}/users/${owner.account.username}/collections/${hidden.id}`, false],
      [`${BASE}/users/${owner.account.username}/collections/${collection.id}`, true],
    ]);
  });

  it('a Person not discoverable lets only itself feature it', async () => {
    const shy = await someone(false);
    const person = await getDoc(actorHandler, `/users/${shy.account.username}`, { username: shy.account.username });
    expect(person.body.interactionPolicy).toEqual({ canFeature: { automaticApproval: [`${BASE}/users/${shy.account.username}`] } });
  });

  it('serves nothing to a signed request of an actor the owner blocks, and the same to others, uncached', async () => {
    const blocked = await aRemote('blocked.example');
    const stranger = await aRemote('stranger.example');
    await putItem(blockRecord({ id: newId(), accountId: owner.account.id, targetAccountId: blocked.account.id, createdAt: new Date().toISOString() }));
    const path = `/users/${owner.account.username}/collections/${collection.id}`;
    const listPath = `/users/${owner.account.username}/featured_collections`;
    expect((await getDoc(collectionDoc, path, { username: owner.account.username, id: collection.id }, signedBy(blocked, path))).status).toBe(404);
    expect((await getDoc(featuredCollectionsDoc, listPath, { username: owner.account.username }, signedBy(blocked, listPath))).status).toBe(404);
    const res = await getDoc(collectionDoc, path, { username: owner.account.username, id: collection.id }, signedBy(stranger, path));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const unsigned = await getDoc(collectionDoc, path, { username: owner.account.username, id: collection.id });
    expect(unsigned.headers['cache-control']).toBe('public, max-age=180');
  });
});

describe('what a change of a collection sends', () => {
  let owner: UserFixture;
  let featured: UserFixture;
  let follower: Account;
  let lonely: UserFixture;
  beforeAll(async () => {
    owner = await someone();
    featured = await someone();
    lonely = await someone();
    follower = (await aRemote('followers.example')).account;
    await remoteFollows(follower, owner.account);
  });

  const sent = () => delivered.map((d) => ({ inbox: d.inbox, type: d.activity.type, signer: d.signer }));

  it('creating one sends an Add of the whole collection to the featuredCollections, to the followers\' inboxes', async () => {
    const c = ok(await create(owner, valid({ account_ids: [featured.account.id] })));
    expect(sent()).toEqual([{ inbox: 'https://followers.example/inbox', type: 'Add', signer: { accountId: owner.account.id } }]);
    const add = delivered[0]!.activity as Record<string, any>;
    expect(add.actor).toBe(`${BASE}/users/${owner.account.username}`);
    expect(add.target).toBe(`${BASE}/users/${owner.account.username}/featured_collections`);
    expect(add.object).toMatchObject({ id: c.uri, type: 'FeaturedCollection', summary: 'Worth following', orderedItems: [{ featuredObject: `${BASE}/users/${featured.account.username}` }] });
  });

  it('an account without remote followers sends nothing', async () => {
    ok(await create(lonely, valid()));
    expect(delivered).toEqual([]);
  });

  it('updating sends an Update to the public when a field changed, nothing when none did', async () => {
    const c = ok(await create(owner, valid()));
    delivered.length = 0;
    ok(await call(updateHandler, { method: 'PATCH', path: `/api/v1/collections/${c.id}`, pathParameters: { id: c.id }, json: { sensitive: true }, token: owner.token }));
    expect(sent().map((s) => s.type)).toEqual(['Update']);
    const update = delivered[0]!.activity as Record<string, any>;
    expect(update.to).toEqual([AS_PUBLIC]);
    expect(update.id).toMatch(new RegExp(`^${c.uri}#updates/\\d+$`));
    expect(update.object).toMatchObject({ id: c.uri, type: 'FeaturedCollection', sensitive: true });
    delivered.length = 0;
    ok(await call(updateHandler, { method: 'PATCH', path: `/api/v1/collections/${c.id}`, pathParameters: { id: c.id }, json: { sensitive: true }, token: owner.token }));
    expect(delivered).toEqual([]);
  });

  it('adding and removing an account sends an Add and a Remove of the item to the collection', async () => {
    const c = ok(await create(owner, valid()));
    delivered.length = 0;
    const item = ok(await call(addItem, { method: 'POST', path: `/api/v1/collections/${c.id}/items`, pathParameters: { id: c.id }, json: { account_id: featured.account.id }, token: owner.token }));
    const itemUri = `${c.uri}/items/${item.collection_item.id}`;
    expect(sent().map((s) => s.type)).toEqual(['Add']);
    expect(delivered[0]!.activity).toMatchObject({ type: 'Add', target: c.uri, object: { id: itemUri, type: 'FeaturedItem', featuredObject: `${BASE}/users/${featured.account.username}` } });
    delivered.length = 0;
    const itemId = item.collection_item.id as string;
    expect((await call(removeItem, { method: 'DELETE', path: `/api/v1/collections/${c.id}/items/${itemId}`, pathParameters: { id: c.id, item_id: itemId }, token: owner.token })).status).toBe(200);
    expect(sent().map((s) => s.type)).toEqual(['Remove']);
    expect(delivered[0]!.activity).toMatchObject({ type: 'Remove', target: c.uri, object: itemUri });
  });

  it('deleting sends a Remove of the collection from the featuredCollections', async () => {
    const c = ok(await create(owner, valid()));
    delivered.length = 0;
    expect((await call(deleteHandler, { method: 'DELETE', path: `/api/v1/collections/${c.id}`, pathParameters: { id: c.id }, token: owner.token })).status).toBe(200);
    expect(sent().map((s) => s.type)).toEqual(['Remove']);
    expect(delivered[0]!.activity).toMatchObject({ type: 'Remove', target: `${BASE}/users/${owner.account.username}/featured_collections`, object: c.uri });
  });
});

describe('collections received from other servers', () => {
  const DOMAIN = 'peers.example';
  let owner: Account & { uri: string };
  let friend: Account;
  let viewer: UserFixture;
  let local: UserFixture;
  beforeAll(async () => {
    owner = (await aRemote(DOMAIN)).account as Account & { uri: string };
    friend = (await aRemote(DOMAIN)).account;
    viewer = await someone();
    local = await someone();
  });

  let n = 0;
  const aCollection = (overrides: Record<string, unknown> = {}) => {
    const id = `${owner.uri}/collections/${++n}`;
    return {
      id,
      type: 'FeaturedCollection',
      name: 'Good folks',
      attributedTo: owner.uri,
      summaryMap: { fr: '<p>Des gens <script>alert(1)</script><b>bien</b></p>' },
      sensitive: false,
      discoverable: true,
      totalItems: 1,
      published: '2026-01-02T03:04:05Z',
      updated: '2026-01-02T03:04:05Z',
      topic: { type: 'Hashtag', name: '#Friends' },
      orderedItems: [{ id: `${id}/items/1`, type: 'FeaturedItem', featuredObject: friend.uri, featuredObjectType: 'Person' }],
      ...overrides,
    };
  };
  const listFor = async (accountId: string): Promise<any[]> => ok(await call(accountCollections, { path: `/api/v1/accounts/${accountId}/collections`, pathParameters: { id: accountId }, token: viewer.token })).collections;
  const showOf = async (id: string) => ok(await call(showHandler, { path: `/api/v1/collections/${id}`, pathParameters: { id }, token: viewer.token }));

  it('stores an Add of a FeaturedCollection, bounded and sanitised, and the API shows it for the remote account', async () => {
    const doc = aCollection({ name: 'x'.repeat(300) });
    expect(await receive(activity(owner, 'Add', doc, { target: `${owner.uri}/featured_collections` }))).toBe('applied');
    const [listed] = await listFor(owner.id);
    expect(listed).toMatchObject({
      uri: doc.id,
      account_id: owner.id,
      local: false,
      name: 'x'.repeat(256),
      language: 'fr',
      discoverable: true,
      tag: { name: 'Friends' },
      item_count: 1,
      items: [{ account_id: friend.id, state: 'accepted' }],
    });
    expect(listed.description).toBe('<p>Des gens <b>bien</b></p>');
    const shown = await showOf(listed.id);
    expect(shown.collection.uri).toBe(doc.id);
    expect(shown.accounts.map((a: { id: string }) => a.id)).toEqual([owner.id, friend.id]);
  });

  it('keeps at most 2048 bytes of a description and the first items up to our limit', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ id: `${owner.uri}/collections/big/items/${i}`, type: 'FeaturedItem', featuredObject: friend.uri }));
    const doc = aCollection({ summaryMap: undefined, summary: `<p>${'é'.repeat(3000)}</p>`, orderedItems: many });
    expect(await receive(activity(owner, 'Add', doc, { target: `${owner.uri}/featured_collections` }))).toBe('applied');
    const stored = (await listFor(owner.id)).find((c) => c.uri === doc.id);
    expect(Buffer.byteLength(stored.description, 'utf8')).toBeLessThanOrEqual(2048);
    expect(stored.description).toMatch(/^<p>é+…<\/p>$/);
    expect(stored.language).toBeNull();
    // The same account featured twice counts once.
    expect(stored.items).toHaveLength(1);
  });

  it('an Update replaces it, an Add and a Remove of a FeaturedItem change its items, a Remove of it deletes it', async () => {
    const doc = aCollection({ orderedItems: [] });
    expect(await receive(activity(owner, 'Add', doc, { target: `${owner.uri}/featured_collections` }))).toBe('applied');
    const id = (await listFor(owner.id)).find((c) => c.uri === doc.id).id as string;
    expect(await receive(activity(owner, 'Update', { ...doc, name: 'Renamed', sensitive: true }))).toBe('applied');
    expect((await showOf(id)).collection).toMatchObject({ name: 'Renamed', sensitive: true, items: [] });

    const item = { id: `${doc.id}/items/9`, type: 'FeaturedItem', featuredObject: friend.uri };
    expect(await receive(activity(owner, 'Add', item, { target: doc.id }))).toBe('applied');
    expect((await showOf(id)).collection.items).toEqual([expect.objectContaining({ account_id: friend.id, state: 'accepted' })]);
    expect(await receive(activity(owner, 'Remove', item.id, { target: doc.id }))).toBe('applied');
    expect((await showOf(id)).collection.items).toEqual([]);

    expect(await receive(activity(owner, 'Remove', doc.id, { target: `${owner.uri}/featured_collections` }))).toBe('applied');
    expect((await call(showHandler, { path: `/api/v1/collections/${id}`, pathParameters: { id }, token: viewer.token })).status).toBe(404);
  });

  it('touches only the actor\'s own collections, and keeps no item of one of our accounts or of a third server\'s', async () => {
    const stranger = (await aRemote('elsewhere.example')).account as Account & { uri: string };
    const doc = aCollection();
    // Another actor claiming it, and a document attributed to someone else.
    expect(await receive(activity(stranger, 'Add', doc, { target: `${stranger.uri}/featured_collections` }))).toBe('ignored');
    expect(await receive(activity(owner, 'Add', { ...doc, attributedTo: stranger.uri }, { target: `${owner.uri}/featured_collections` }))).toBe('ignored');
    const third = (await aRemote('third.example')).account;
    const mixed = aCollection({
      orderedItems: [
        { id: `${owner.uri}/collections/m/items/1`, type: 'FeaturedItem', featuredObject: `${BASE}/users/${local.account.username}` },
        { id: `${owner.uri}/collections/m/items/2`, type: 'FeaturedItem', featuredObject: third.uri },
        { id: `${owner.uri}/collections/m/items/3`, type: 'FeaturedItem', featuredObject: friend.uri },
      ],
    });
    expect(await receive(activity(owner, 'Add', mixed, { target: `${owner.uri}/featured_collections` }))).toBe('applied');
    const stored = (await listFor(owner.id)).find((c) => c.uri === mixed.id);
    expect(stored.items.map((i: { account_id: string }) => i.account_id)).toEqual([friend.id]);
    // A Remove by another actor of the owner's collection does nothing.
    expect(await receive(activity(stranger, 'Remove', mixed.id, { target: `${owner.uri}/featured_collections` }))).toBe('ignored');
    expect((await listFor(owner.id)).some((c) => c.uri === mixed.id)).toBe(true);
  });
});
